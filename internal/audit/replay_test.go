package audit

import "testing"

// TestReplayTarget: replay takes a case id, or a finding id for its case,
// and the era of a failure seen only in one era of an --era both run; a
// "#" of the case id's own is kept.
func TestReplayTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ arg, caseID, era string }{
		{"echo/null/q", "echo/null/q", ""},
		{"echo/null/q#crash", "echo/null/q", ""},
		{"echo/null/q#era_difference", "echo/null/q", ""},
		{"echo/null/q#crash@legacy", "echo/null/q", "legacy"},
		{"echo/null/q#leak@modern", "echo/null/q", "modern"},
		{"echo/oversize/q#string", "echo/oversize/q#string", ""},
		{"echo/oversize/q#string#hang@legacy", "echo/oversize/q#string", "legacy"},
		{"echo/structural#2", "echo/structural#2", ""},
	} {
		if id, era := ReplayTarget(tc.arg); id != tc.caseID || era != tc.era {
			t.Errorf("ReplayTarget(%q) = %q, %q; want %q, %q", tc.arg, id, era, tc.caseID, tc.era)
		}
	}
}
