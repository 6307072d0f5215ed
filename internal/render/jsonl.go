package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// JSONL line types.
const (
	JSONLCase        = "case"
	JSONLSkippedTool = "skipped_tool"
	JSONLRun         = "run"
)

// JSONLCaseLine is a "case" line of the [JSONL] trace.
type JSONLCaseLine struct {
	Type      string          `json:"type"` // JSONLCase
	Tool      string          `json:"tool"`
	CaseID    string          `json:"caseId"`
	Kind      string          `json:"kind"`
	Pointer   string          `json:"pointer"`
	Forbidden bool            `json:"forbidden"`
	Verdict   report.Verdict  `json:"verdict"`
	Flags     []string        `json:"flags"`
	Arguments json.RawMessage `json:"arguments"`
	// ArgumentsDigest stands for arguments too large to store, as in the
	// JSON report (then Arguments is null).
	ArgumentsDigest *report.ArgumentsDigest `json:"argumentsDigest,omitempty"`
	StartedAt       time.Time               `json:"startedAt"`
	DurationMs      float64                 `json:"durationMs"`
	// Timing is the valid call's runs, p50 and p95 (--repeat).
	Timing    *report.Timing `json:"timing,omitempty"`
	Detail    string         `json:"detail,omitempty"`
	ErrorCode *int64         `json:"errorCode,omitempty"`
	Response  string         `json:"response,omitempty"`
}

// JSONLRunLine is the "run" line that opens the [JSONL] trace of a run
// that started a server: how it was contained.
type JSONLRunLine struct {
	Type string `json:"type"` // JSONLRun
	report.Run
}

// JSONLToolLine is a "skipped_tool" line of the [JSONL] trace.
type JSONLToolLine struct {
	Type       string `json:"type"` // JSONLSkippedTool
	Tool       string `json:"tool"`
	SkipReason string `json:"skipReason"`
}

// JSONL writes the full trace of rep to w, one JSON object per line: a
// "run" line first when rep says how its server was contained, a "case"
// line per case (tool, caseId, kind, pointer, verdict, flags,
// arguments, startedAt, durationMs, response excerpt), then a
// "skipped_tool" line per tool that was not tested. startedAt is when the
// case's first call began (the run's start, for a report that does not
// say: one of an older version, or a case not sent). Text is
// JSON-escaped (control characters included, see [escape.JSON]), not
// otherwise cleaned: this is the raw trace. Arguments the report compacted
// stay compacted (null, with their argumentsDigest), so the trace is as
// bounded as the report.
func JSONL(rep *report.Report, w io.Writer) error {
	// Each line is encoded into buf, escaped, then written whole.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	write := func(v any) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := w.Write(escape.JSON(buf.Bytes()))
		return err
	}
	if rep.Run != nil {
		if err := write(JSONLRunLine{Type: JSONLRun, Run: *rep.Run}); err != nil {
			return err
		}
	}
	started := rep.StartedAt
	for _, t := range rep.Tools {
		if !t.Tested {
			continue
		}
		for _, c := range t.Cases {
			flags := c.Flags
			if flags == nil {
				flags = []string{}
			}
			args := c.Arguments
			switch {
			case len(args) == 0:
				args = json.RawMessage("null")
			case !json.Valid(args):
				// Keep the bytes, as a string, rather than fail the trace.
				args, _ = json.Marshal(string(args))
			}
			line := JSONLCaseLine{
				Type: JSONLCase, Tool: t.Name, CaseID: c.ID, Kind: c.Kind, Pointer: c.Pointer, Forbidden: c.Forbidden,
				Verdict: c.Verdict, Flags: flags, Arguments: args, ArgumentsDigest: c.ArgumentsDigest, StartedAt: started.Add(time.Duration(c.StartedMs * float64(time.Millisecond))), DurationMs: c.DurationMs, Timing: c.Timing,
				Detail: c.Detail, ErrorCode: c.ErrorCode, Response: c.Response,
			}
			if err := write(line); err != nil {
				return fmt.Errorf("writing case %s: %w", c.ID, err)
			}
		}
	}
	for _, t := range rep.Tools {
		if t.Tested {
			continue
		}
		if err := write(JSONLToolLine{Type: JSONLSkippedTool, Tool: t.Name, SkipReason: t.SkipReason}); err != nil {
			return fmt.Errorf("writing skipped tool %s: %w", t.Name, err)
		}
	}
	return nil
}
