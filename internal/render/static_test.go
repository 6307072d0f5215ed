package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// staticReport is a scored static audit (--no-calls) of two tools, one
// with a lint error.
func staticReport() *report.Report {
	rep := &report.Report{
		Version: "test", Seed: 1, Static: true, Config: report.Settings{NoCalls: true},
		Target: report.Target{Transport: "stdio", Command: "server"},
		Server: report.Server{Name: "srv", Version: "1"},
		Tools: []report.Tool{
			{Name: "a", SkipReason: "not called: --no-calls (static audit)", Cases: []report.Case{}},
			{Name: "b", SkipReason: "not called: --no-calls (static audit)", Cases: []report.Case{}},
		},
		Lint:     []report.Lint{{Code: "x", Severity: report.SeverityError, Tool: "a", Message: "bad"}},
		Findings: []report.Finding{},
	}
	rep.Summary = report.Summarize(rep.Tools)
	score.Apply(rep)
	return rep
}

// TestStaticLabelInEveryFormat renders a static audit in each format: each
// says it is one, where the format has room for it.
func TestStaticLabelInEveryFormat(t *testing.T) {
	rep := staticReport()
	if rep.Score == nil || *rep.Score != 95 || *rep.Grade != "A" {
		t.Fatalf("score %v grade %v, want A 95 from Schema", rep.Score, rep.Grade)
	}
	for _, f := range Formats() {
		t.Run(f.Name, func(t *testing.T) {
			out, err := f.Render(rep, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := string(out)
			switch f.Name {
			case "badge":
				if !strings.Contains(s, "A 95 static") {
					t.Errorf("badge lacks %q:\n%s", "A 95 static", s)
				}
			case "jsonl":
				// One line per call: a static audit has none.
				if strings.TrimSpace(s) != "" && strings.Contains(s, `"verdict"`) {
					t.Errorf("jsonl of a static audit holds calls:\n%s", s)
				}
			case "json":
				var v struct {
					Static bool `json:"static"`
					Config struct {
						NoCalls bool `json:"noCalls"`
					} `json:"config"`
				}
				if err := json.Unmarshal(out, &v); err != nil || !v.Static || !v.Config.NoCalls {
					t.Errorf("json: static %v, config.noCalls %v (%v)", v.Static, v.Config.NoCalls, err)
				}
			default:
				if !strings.Contains(s, report.StaticLabel) {
					t.Errorf("%s lacks %q:\n%s", f.Name, report.StaticLabel, s)
				}
			}
		})
	}
	if u := BadgeURL(rep); !strings.Contains(u, "A%2095%20static") {
		t.Errorf("badge URL %s lacks the static mark", u)
	}
	md := Markdown(rep)
	for _, want := range []string{"| not measured | 30 | --no-calls, no call was made |", "protocol checks: none, a static audit (--no-calls)", "not called: --no-calls (static audit)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	merged := MergedMarkdown([]*report.Report{rep})
	if !strings.Contains(merged, report.StaticLabel) {
		t.Errorf("merged markdown lacks the label:\n%s", merged)
	}
}
