package engine

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Answers over --max-response are judged from a scan of the whole answer,
// never held: a 1 MiB result, isError result or -32602 error gets the verdict
// a small one would, flagged bloated; a line that never ends is a protocol
// violation, not a hang.
func TestAnswersOverTheCap(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep := runFixture(t, "hostile-huge-answers", func(c *Config) {
		c.MaxResponse = 64 << 10
		c.Cases = 2 // the valid call and missing_required/q
		c.Timeout = time.Second
	})
	runtime.ReadMemStats(&after)

	want := map[string]report.Verdict{
		"huge_ok/valid":                   report.OK,
		"huge_ok/missing_required/q":      report.Accepted,
		"huge_iserror/valid":              report.Errored,
		"huge_iserror/missing_required/q": report.Handled,
		"huge_reject/valid":               report.Errored,
		"huge_reject/missing_required/q":  report.Rejected,
		"huge_id_last/valid":              report.OK,
		"never_ends/valid":                report.ProtocolViolation,
		"huge_bad_version/valid":          report.ProtocolViolation,
		"never_ends/missing_required/q":   report.ProtocolViolation,
		"huge_id_last/missing_required/q": report.Accepted,
	}
	got := map[string]report.Case{}
	for _, c := range cases(rep) {
		got[c.ID] = c
	}
	for id, v := range want {
		c, ok := got[id]
		if !ok {
			t.Errorf("no case %s", id)
			continue
		}
		if c.Verdict != v {
			t.Errorf("%s: verdict %s (%s), want %s", id, c.Verdict, c.Detail, v)
		}
		if strings.HasPrefix(id, "never_ends") || strings.HasPrefix(id, "huge_bad_version") {
			want := "never ended"
			if strings.HasPrefix(id, "huge_bad_version") {
				want = `breaks JSON-RPC: "jsonrpc" is not "2.0"`
			}
			if !strings.Contains(c.Detail, want) {
				t.Errorf("%s: detail %q does not say %q", id, c.Detail, want)
			}
			continue
		}
		if !slices.Contains(c.Flags, report.FlagBloated) || c.Size < 1<<20 {
			t.Errorf("%s: flags %v, size %d: want bloated with the whole answer's size", id, c.Flags, c.Size)
		}
		if len(c.Response) > 2048 {
			t.Errorf("%s: %d bytes of response kept", id, len(c.Response))
		}
	}
	if c := got["huge_reject/missing_required/q"]; c.ErrorCode == nil || *c.ErrorCode != -32602 {
		t.Errorf("huge_reject: error code %v, want -32602 from the scan", c.ErrorCode)
	}
	// Ten answers of 1 MiB (two of them unfinished): reading them whole
	// would allocate over 10 MiB; scanning them allocates almost nothing.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("the run allocated %d MiB for ten 1 MiB answers with a 64 KiB cap", grew>>20)
	}
}
