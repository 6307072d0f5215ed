package hostile

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestHTTPAbuse runs HTTP servers (in the test, on 127.0.0.1) that abuse
// the transport around a polite tool. Each run must end within its bound
// with a report whose verdicts say what happened, and leak no canary.
func TestHTTPAbuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		server func() *mcpHTTP
		flags  []string
		// check judges the run; nil means ranToTheEnd and then want.
		check func(t *testing.T, r *result)
		want  func(t *testing.T, rep *report.Report)
	}{
		{
			// Every tools/call answer trickles in at one byte a second (and
			// carries the canary, echoed from X-Api-Key).
			name: "slowloris calls",
			server: func() *mcpHTTP {
				h := &mcpHTTP{}
				h.answer = func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool {
					if m.Method != "tools/call" {
						return false
					}
					h.trickle(w, r, frame(m.ID, toolText("answered for "+r.Header.Get("X-Api-Key"), false), nil))
					return true
				}
				return h
			},
			flags: []string{"--timeout", "2s", "--cases", "3"},
			want: func(t *testing.T, rep *report.Report) {
				wantVerdict(t, rep, "echo/valid", report.Hang)
			},
		},
		{
			// Every tools/call answer is an event stream of notifications
			// (with the canary) that never carries the response; bad input
			// gets one data line that never ends.
			name: "endless event stream",
			server: func() *mcpHTTP {
				h := &mcpHTTP{}
				h.answer = func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool {
					if m.Method != "tools/call" {
						return false
					}
					h.endlessEvents(w, r, !isValidCall(m))
					return true
				}
				return h
			},
			flags: []string{"--timeout", "2s", "--cases", "3"},
			want: func(t *testing.T, rep *report.Report) {
				wantVerdict(t, rep, "echo/valid", report.Hang)
				for _, c := range cases(rep) {
					if c.Verdict == report.OK || c.Verdict == report.Handled || c.Verdict == report.Tolerated {
						t.Errorf("%s: verdict %s, but no answer ever came", c.ID, c.Verdict)
					}
				}
			},
		},
		{
			// A new Mcp-Session-Id on every answer, from initialize on.
			name: "session id churn",
			server: func() *mcpHTTP {
				var n atomic.Int64
				return &mcpHTTP{header: func(w http.ResponseWriter) {
					w.Header().Set("Mcp-Session-Id", fmt.Sprintf("churn-%d", n.Add(1)))
				}}
			},
			flags: []string{"--timeout", "5s"},
			check: sessionChurn,
		},
		{
			// A stable session id through the handshake and the listing, then a
			// new one on every answer.
			name: "session id churn after the listing",
			server: func() *mcpHTTP {
				var n atomic.Int64
				return &mcpHTTP{header: func(w http.ResponseWriter) {
					id := n.Add(1)
					if id <= 3 { // initialize, notifications/initialized, tools/list
						id = 0
					}
					w.Header().Set("Mcp-Session-Id", fmt.Sprintf("churn-%d", id))
				}}
			},
			flags: []string{"--timeout", "5s"},
			check: sessionChurn,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.server()
			r := run(t, opts{url: h.start(t), bound: 90 * time.Second}, tt.flags...)
			r.assertNoCanary(t)
			if tt.check != nil {
				tt.check(t, r)
				return
			}
			rep := r.ranToTheEnd(t)
			if rep.Target.Transport != "streamable-http" {
				t.Errorf("transport %q, want streamable-http", rep.Target.Transport)
			}
			tt.want(t, rep)
		})
	}
}

// sessionChurn judges a run against a server that changes its session id:
// either a report in which no call hung, or a refusal to connect (exit 3)
// that names the session id as the reason.
func sessionChurn(t *testing.T, r *result) {
	t.Helper()
	if r.code == 3 {
		if !strings.Contains(strings.ToLower(r.stderr), "session") {
			t.Errorf("exit 3 without naming the session id as the reason:\n%s", tail(r.stderr))
		}
		t.Logf("refused: %s", strings.TrimSpace(r.stderr))
		return
	}
	rep := r.ranToTheEnd(t)
	wantNone(t, rep, report.Hang)
	c := caseByID(t, rep, "echo/valid")
	t.Logf("echo/valid: %s (%s)", c.Verdict, c.Detail)
}

// TestHTTPSlowlorisStartup trickles the initialize answer: mcp-fuzz must
// give up at --startup-timeout and say it could not connect (exit 3).
func TestHTTPSlowlorisStartup(t *testing.T) {
	t.Parallel()
	h := &mcpHTTP{}
	h.answer = func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool {
		if m.Method != "initialize" {
			return false
		}
		h.trickle(w, r, frame(m.ID, politeResult(m), nil))
		return true
	}
	r := run(t, opts{url: h.start(t), bound: 60 * time.Second}, "--startup-timeout", "3s")
	r.assertNoCanary(t)
	if r.code != 3 {
		t.Errorf("exit %d, want 3 (could not connect)\nstderr:\n%s", r.code, tail(r.stderr))
	}
	if !strings.Contains(r.stderr, "startup-timeout") {
		t.Errorf("stderr does not name the startup timeout:\n%s", tail(r.stderr))
	}
}
