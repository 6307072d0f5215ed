package repro

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// No field of a finding grows with the case: messages are cut, long
// arguments are replayed rather than copied.
func TestFindingsStaySmall(t *testing.T) {
	t.Parallel()
	args, digest := report.CompactArguments(json.RawMessage(`["` + strings.Repeat("a", 1<<20) + `"]`))
	rep := &report.Report{Tools: []report.Tool{{Name: "t", Tested: true, Cases: []report.Case{
		{ID: "t/structural#huge", Verdict: report.Crash, Detail: strings.Repeat("d", 100000), Arguments: args, ArgumentsDigest: digest,
			Flags: []string{report.FlagLeak}},
	}}}}
	fs := Findings(rep, Target{Command: []string{"srv"}})
	if len(fs) != 2 {
		t.Fatalf("%d findings, want 2", len(fs))
	}
	for _, f := range fs {
		b, _ := json.Marshal(f)
		if len(b) > 4096 {
			t.Errorf("finding %s encodes as %d bytes", f.ID, len(b))
		}
	}
}

func TestFlagDetail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		detail, flag, want string
		ok                 bool
	}{
		{"slow: p50 812 ms over 3 runs, above --slow-ms 5000", "slow", "p50 812 ms over 3 runs, above --slow-ms 5000", true},
		{"ok; slow: 812 ms in 1 run, above --slow-ms 5000; bloated: 30000 characters, above --bloat-chars 20000", "slow", "812 ms in 1 run, above --slow-ms 5000", true},
		{"ok; slow: 812 ms in 1 run, above --slow-ms 5000; bloated: 30000 characters, above --bloat-chars 20000", "bloated", "30000 characters, above --bloat-chars 20000", true},
		// Server text that merely contains the words is not the flag's part.
		{"answered 'too slow: retry'", "slow", "", false},
		{"", "slow", "", false},
	} {
		got, ok := flagDetail(tc.detail, tc.flag)
		if got != tc.want || ok != tc.ok {
			t.Errorf("flagDetail(%q, %q) = %q, %v; want %q, %v", tc.detail, tc.flag, got, ok, tc.want, tc.ok)
		}
	}
}
