package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// reportFacts are the few things a benchmark reads from an mcp-fuzz JSON
// report.
type reportFacts struct {
	Bytes       int64   `json:"bytes"`
	Cases       int     `json:"cases"`
	SlowestMs   float64 `json:"slowest_case_ms"`
	SlowestCase string  `json:"slowest_case"`
	SlowestVerd string  `json:"slowest_verdict"`
}

// readReport reads the JSON report at name one tool at a time, so a huge
// report does not need as much memory here as it took to write.
func readReport(name string) (reportFacts, error) {
	var r reportFacts
	f, err := os.Open(name)
	if err != nil {
		return r, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return r, err
	}
	r.Bytes = st.Size()
	dec := json.NewDecoder(f)
	if err := expectDelim(dec, '{'); err != nil {
		return r, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return r, fmt.Errorf("reading %s: %w", name, err)
		}
		switch tok {
		case "summary":
			var s struct {
				Cases int `json:"cases"`
			}
			if err := dec.Decode(&s); err != nil {
				return r, fmt.Errorf("reading %s summary: %w", name, err)
			}
			r.Cases = s.Cases
		case "tools":
			if err := readTools(dec, &r); err != nil {
				return r, fmt.Errorf("reading %s tools: %w", name, err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return r, fmt.Errorf("reading %s: %w", name, err)
			}
		}
	}
	return r, nil
}

func readTools(dec *json.Decoder, r *reportFacts) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		var t struct {
			Cases []struct {
				ID         string  `json:"id"`
				Verdict    string  `json:"verdict"`
				DurationMs float64 `json:"durationMs"`
			} `json:"cases"`
		}
		if err := dec.Decode(&t); err != nil {
			return err
		}
		for _, c := range t.Cases {
			if c.DurationMs >= r.SlowestMs {
				r.SlowestMs, r.SlowestCase, r.SlowestVerd = c.DurationMs, c.ID, c.Verdict
			}
		}
	}
	_, err := dec.Token()
	return err
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("want %v, got %v", want, tok)
	}
	return nil
}
