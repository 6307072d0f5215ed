package audit

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestLearnedArgs: replay regenerates the mutations of a tool from its
// learned valid call only when that call succeeded (its mutations were
// generated from it); a learned call that crashed left them synthetic.
func TestLearnedArgs(t *testing.T) {
	t.Parallel()
	rep := &report.Report{Tools: []report.Tool{
		{Name: "a", Cases: []report.Case{{Kind: report.KindValid, Verdict: report.OK, LearnedFrom: "error message", Arguments: json.RawMessage(`{"n":7,"p":"/x"}`)}}},
		{Name: "b", Cases: []report.Case{{Kind: report.KindValid, Verdict: report.Crash, LearnedFrom: "error message", Arguments: json.RawMessage(`{"p":"/y"}`)}}},
		{Name: "c", Cases: []report.Case{{Kind: report.KindValid, Verdict: report.OK, Arguments: json.RawMessage(`{"p":"/z"}`)}}},
	}}
	got := LearnedArgs(rep, "a")
	want := map[string]map[string]any{"a": {"n": json.Number("7"), "p": "/x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LearnedArgs(a) = %v, want %v", got, want)
	}
	for _, tool := range []string{"b", "c", "missing"} {
		if got := LearnedArgs(rep, tool); got != nil {
			t.Errorf("LearnedArgs(%s) = %v, want nil", tool, got)
		}
	}
}
