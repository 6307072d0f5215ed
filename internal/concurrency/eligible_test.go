package concurrency

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestEligibleSaysWhichAnnotation: a tool left out as unsafe to call again
// is told apart by what it is annotated, not "not annotated readOnlyHint,
// or destructiveHint false", which read as the opposite.
func TestEligibleSaysWhichAnnotation(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	rt := report.Tool{Name: "t", Tested: true, Confirmed: true,
		Cases: []report.Case{{ID: "t/valid", Kind: report.KindValid, Verdict: report.OK, Arguments: []byte(`{}`)}}}
	cr := &checker{n: 3}
	for _, c := range []struct {
		name                  string
		readOnly, destructive *bool
		want                  string
	}{
		{"none", nil, nil, "annotated neither readOnlyHint true nor destructiveHint false: calling it 3 more times"},
		{"destructive", nil, &yes, "annotated destructiveHint true: calling it 3 more times"},
		{"contradictory", &yes, &yes, "annotated destructiveHint true:"},
		{"read-only", &yes, nil, ""},
		{"not destructive", nil, &no, ""},
	} {
		_, skip := cr.eligible(mcptool.Tool{Name: "t", ReadOnly: c.readOnly, Destructive: c.destructive}, rt)
		if c.want == "" && skip != "" || !strings.HasPrefix(skip, c.want) {
			t.Errorf("%s: skip %q, want it to start with %q", c.name, skip, c.want)
		}
	}
}
