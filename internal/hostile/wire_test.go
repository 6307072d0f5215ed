package hostile

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestWireAbuse runs stdio servers that abuse the wire around otherwise
// polite tools. Each run must end within its bound with a report whose
// verdicts say what happened, leave no process, and leak no canary.
func TestWireAbuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fixture string
		args    []string // the fixture's
		flags   []string // mcp-fuzz's
		check   func(t *testing.T, r *result, rep *report.Report)
	}{
		{
			// 5,000 notifications (logs, progress nobody asked for,
			// list_changed) before every answer.
			name: "notification flood", fixture: "hostile-notify-flood",
			check: func(t *testing.T, _ *result, rep *report.Report) {
				wantVerdict(t, rep, "chatty/valid", report.OK)
				wantNone(t, rep, report.Hang, report.Crash, report.ProtocolViolation)
			},
		},
		{
			// sampling/createMessage, roots/list, elicitation/create and ping
			// from the server in the middle of every call, with ids that
			// collide with the client's.
			name: "server requests mid-call", fixture: "hostile-server-requests",
			check: func(t *testing.T, _ *result, rep *report.Report) {
				wantVerdict(t, rep, "curious/valid", report.OK)
				wantNone(t, rep, report.Hang, report.Crash)
			},
		},
		{
			// Every call answered twice under its id, once under its id as
			// a string, and the previous call's id answered again.
			name: "duplicate response ids", fixture: "hostile-dup-ids",
			check: func(t *testing.T, _ *result, rep *report.Report) {
				wantNone(t, rep, report.Hang)
				if rep.Summary.ProtocolViolation == 0 {
					t.Error("no protocol_violation: the duplicate and stray answers went unnoticed")
				}
				for _, c := range cases(rep) {
					if strings.Contains(c.Response, "second answer") || strings.Contains(c.Response, "string id") {
						t.Errorf("%s took a duplicate answer for its own: %q", c.ID, c.Response)
					}
				}
			},
		},
		{
			// Control bytes, escape sequences, invalid UTF-8, half a frame
			// and a 1 MiB line of random bytes on stdout before each bad
			// call's answer.
			name: "binary garbage on stdout", fixture: "hostile-binary-stdout",
			check: func(t *testing.T, _ *result, rep *report.Report) {
				wantVerdict(t, rep, "noisy/valid", report.OK)
				wantVerdict(t, rep, "noisy/missing_required/q", report.ProtocolViolation)
				wantNone(t, rep, report.Hang)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			server := append([]string{fixture.Build(t, tt.fixture)}, tt.args...)
			flags := append([]string{"--timeout", "5s"}, tt.flags...)
			r := run(t, opts{server: server, bound: 90 * time.Second}, flags...)
			assertNoProcessLeft(t, r)
			r.assertNoCanary(t)
			rep := r.ranToTheEnd(t)
			tt.check(t, r, rep)
		})
	}
}

// TestStderrFlood has the server write 1 GiB to stderr during its first
// call: mcp-fuzz must drain it as it comes (the call is answered, not hung)
// and keep only a bounded tail (its peak memory stays small). A gigabyte
// through a pipe takes a few seconds.
func TestStderrFlood(t *testing.T) {
	t.Parallel()
	r := run(t, opts{server: []string{fixture.Build(t, "hostile-stderr-flood")}, bound: 150 * time.Second}, "--timeout", "90s")
	assertNoProcessLeft(t, r)
	r.assertNoCanary(t)
	rep := r.ranToTheEnd(t)
	wantVerdict(t, rep, "noisy_lookup/valid", report.OK)
	const limit = 256 << 20
	if r.peakRSS == 0 {
		t.Log("mcp-fuzz's peak RSS was never read: memory not checked")
	} else if r.peakRSS > limit {
		t.Errorf("mcp-fuzz's peak RSS %d MiB while 1 GiB of stderr went by, want under %d MiB", r.peakRSS>>20, limit>>20)
	}
}

// wantVerdict checks one case's verdict.
func wantVerdict(t *testing.T, rep *report.Report, id string, want report.Verdict) {
	t.Helper()
	if c := caseByID(t, rep, id); c.Verdict != want {
		t.Errorf("%s: verdict %s (%s), want %s", id, c.Verdict, c.Detail, want)
	}
}

// wantNone checks that no case got any of the verdicts.
func wantNone(t *testing.T, rep *report.Report, verdicts ...report.Verdict) {
	t.Helper()
	for _, c := range cases(rep) {
		for _, v := range verdicts {
			if c.Verdict == v {
				t.Errorf("%s: verdict %s (%s)", c.ID, c.Verdict, c.Detail)
			}
		}
	}
}
