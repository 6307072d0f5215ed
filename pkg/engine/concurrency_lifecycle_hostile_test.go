package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// alivePIDs returns the pids recorded in dir/*.pid that are still running
// (zombies aside), and kills them so that a failing test leaves nothing.
func alivePIDs(t *testing.T, dir, glob string) []int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, glob))
	var live []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
			continue
		}
		live = append(live, pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return live
}

// Each of the N sessions of the concurrency checks starts an orphan that
// left its session and emptied its environment (no marker names it), and
// that outlives the server: none may survive the run, though several
// servers ran at once when they were orphaned.
func TestHostileConcurrencyOrphans(t *testing.T) {
	parallel(t)
	pidDir := t.TempDir()
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-daemon")
		c.Env = append(c.Env, "PIDDIR="+pidDir)
		c.Cases = 2
		c.Concurrency = 4
		c.Cwd = t.TempDir()
	})
	if c := checkByID(t, rep, "concurrency/echo"); c.Status != report.CheckPass {
		t.Errorf("concurrency/echo = %+v, want a pass", c)
	}
	files, _ := filepath.Glob(filepath.Join(pidDir, "orphan-*.pid"))
	if len(files) < 5 {
		t.Fatalf("%d orphans recorded, want one per session (at least 5): the fixture did not run as meant", len(files))
	}
	if live := alivePIDs(t, pidDir, "orphan-*.pid"); len(live) > 0 {
		t.Errorf("%d of %d orphans left running after the run: %v", len(live), len(files), live)
	}
}

// A tool that hangs only while another session is open: the concurrency
// check says hang, once, within the checks' budget, and the call alone
// stays ok; nothing is left running.
func TestHostileConcurrencyHangShared(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-hang-shared")
		c.Cases = 2
		c.Concurrency = 3
		c.Timeout = time.Second
		c.Cwd = t.TempDir()
	})
	if v := validCase(t, rep, "echo"); v.Verdict != report.OK {
		t.Fatalf("echo alone = %s (%s), want ok", v.Verdict, v.Detail)
	}
	c := checkByID(t, rep, "concurrency/echo")
	if c.Status != report.CheckFail || c.Code != string(report.Hang) {
		t.Errorf("concurrency/echo = %+v, want a hang", c)
	}
}

// End to end: 16 sessions of a server that ignores SIGTERM are
// stopped, and the concurrency check still passes (the server answers
// well) with nothing left running.
func TestHostileConcurrencyStubborn(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-stubborn")
		c.Cases = 1
		c.Concurrency = MaxConcurrency
		c.Cwd = t.TempDir()
	})
	if c := checkByID(t, rep, "concurrency/echo"); c.Status != report.CheckPass {
		t.Errorf("concurrency/echo = %+v, want a pass", c)
	}
}

// lifecycleHostile audits hostile-lifecycle with args and a secret in its
// environment, and returns the report and its JSON.
func lifecycleHostile(t *testing.T, secret string, args ...string) (*report.Report, string) {
	t.Helper()
	rep := runFixture(t, "hostile-lifecycle", func(c *Config) {
		c.Command = append(c.Command, args...)
		c.Env = []string{"API_TOKEN=" + secret}
		c.IncludeDestructive, c.Sequential = true, true
		c.Cases = 3
		c.Timeout = time.Second
	})
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(b)
}

// Ids that attack the lifecycle checks: the value of a secret (whole, or
// inside the id), terminal escapes and line breaks. No secret reaches the
// report, the escapes are quoted in the detail, and nothing is a crash or
// a hang; a delete that never answers is the hang it is.
func TestHostileLifecycle(t *testing.T) {
	parallel(t)
	const secret = "sk-live-4f9a8b7c6d5e4f3a2b1c"
	for _, tc := range []struct {
		args   []string
		status string
		code   string
	}{
		{nil, report.CheckPass, ""},
		{[]string{"-id", "secret"}, report.CheckSkip, ""},
		{[]string{"-id", "secret-part"}, report.CheckSkip, ""},
		{[]string{"-id", "ansi"}, report.CheckPass, ""},
		{[]string{"-delete-hang"}, report.CheckFail, string(report.Hang)},
	} {
		rep, js := lifecycleHostile(t, secret, tc.args...)
		if strings.Contains(js, secret) || strings.Contains(js, "sk-live") {
			t.Errorf("%v: the secret is in the report", tc.args)
		}
		c := checkByID(t, rep, "lifecycle/note")
		if c.Status != tc.status || c.Code != tc.code {
			t.Errorf("%v: lifecycle/note = %s %s (%s), want %s %s", tc.args, c.Status, c.Code, c.Detail, tc.status, tc.code)
		}
		if len(tc.args) == 2 && strings.HasPrefix(tc.args[1], "secret") && !strings.Contains(c.Detail, "carries the value of a secret") {
			t.Errorf("%v: detail %q does not say the id carries a secret (the redacted id was sent back and its refusal read as the server's)", tc.args, c.Detail)
		}
		if strings.ContainsAny(c.Detail, "\x1b\x07\r\n") {
			t.Errorf("%v: raw control characters in the detail %q", tc.args, c.Detail)
		}
	}
}

// A probe refused with a JSON-RPC error whose message is over
// --max-response was refused all the same: the check judges the code the
// scan of the whole answer found, not "answered ..., not an error" (a
// false bad_request_served on every probe).
func TestHostileProbesHugeRefusal(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-probes", func(c *Config) {
		c.Command = append(c.Command, "-mode", "huge")
		c.Protocol = true
		c.Cases = 2
	})
	st := checkStatuses(rep)
	if got := st["probe/unknown-method"]; got != report.CheckPass {
		t.Errorf("probe/unknown-method refused with a huge -32601 = %s, want pass", got)
	}
	for _, c := range rep.Checks {
		if c.Code == report.CodeBadRequestServed || c.Code == report.CodeEnvelopeIgnored {
			t.Errorf("%s = %s %s (%s): a refusal judged as a request served", c.ID, c.Status, c.Code, c.Detail)
		}
	}
}

// The same in judgeCheck: an oversize error answer is a refusal with its
// code; an oversize result is judged by what the check expects of a
// result; an oversize answer that breaks JSON-RPC is a violation.
func TestJudgeCheckOversize(t *testing.T) {
	parallel(t)
	isErr := true
	for _, tc := range []struct {
		name   string
		e      protocheck.Expectation
		over   rpc.Oversize
		status string
		code   string
	}{
		{"error answer, code expected", deviant(-32601), rpc.Oversize{Bytes: 9 << 20, Ended: true, IsErrorAnswer: true, Code: -32601}, report.CheckPass, ""},
		{"error answer, other code", deviant(-32602), rpc.Oversize{Bytes: 9 << 20, Ended: true, IsErrorAnswer: true, Code: -32601}, report.CheckFail, report.CodeProtocolDeviation},
		{"any answer will do", protocheck.Expectation{ServedOK: func(json.RawMessage) bool { return true }}, rpc.Oversize{Bytes: 9 << 20, Ended: true}, report.CheckPass, ""},
		{"isError result", protocheck.Expectation{Deviation: true, Served: report.CodeBadRequestServed, ServedOK: isErrorAnswer}, rpc.Oversize{Bytes: 9 << 20, Ended: true, IsError: &isErr}, report.CheckPass, ""},
		{"result where a refusal is due", deviant(-32601), rpc.Oversize{Bytes: 9 << 20, Ended: true}, report.CheckFail, report.CodeBadRequestServed},
		{"malformed", deviant(-32601), rpc.Oversize{Bytes: 9 << 20, Ended: true, Malformed: "not JSON"}, report.CheckFail, report.CodeProtocolDeviation},
	} {
		over := tc.over
		var c report.Check
		protocheck.Judge(tc.e, oracle.Outcome{Oversize: &over}, protocheck.HTTPAnswer{}, &c)
		if c.Status != tc.status || c.Code != tc.code {
			t.Errorf("%s: %s %s (%s), want %s %s", tc.name, c.Status, c.Code, c.Detail, tc.status, tc.code)
		}
	}
}

// A server that does not support cancellation answers the cancelled
// request anyway, a moment later (the specification allows the race and
// asks the client to ignore that answer): concurrency/cancel passes, and
// the answer is no protocol violation anywhere.
func TestHostileConcurrencyCancelRace(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-slow")
		c.Cases = 1
		c.Concurrency = 2
		c.Cwd = t.TempDir()
	})
	if rep.ServerViolationCount > 0 {
		t.Errorf("the answer to a cancelled request was counted a violation: %v", rep.ServerViolations)
	}
	if c := checkByID(t, rep, "concurrency/cancel"); c.Status != report.CheckPass {
		t.Errorf("concurrency/cancel = %s %s (%s), want a pass", c.Status, c.Code, c.Detail)
	}
}

// A server whose every delete hangs, with many resources: each group's
// check costs a timeout (and its cleanup more). Like the protocol checks,
// the lifecycle checks stop after maxCheckHangs calls got no answer: the
// rest are skipped with why, so the server costs a few timeouts, not a
// few per resource.
func TestHostileLifecycleHangsBounded(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-lifecycle", func(c *Config) {
		c.Command = append(c.Command, "-delete-hang", "-nouns", "6")
		c.IncludeDestructive, c.Sequential = true, true
		c.Cases = 1
		c.Timeout = time.Second
	})
	hung, skipped := 0, 0
	for _, c := range rep.Checks {
		if c.Group != report.CheckGroupLifecycle {
			continue
		}
		switch {
		case c.Code == string(report.Hang):
			hung++
		case c.Status == report.CheckSkip:
			skipped++
		}
	}
	if hung > maxCheckHangs {
		t.Errorf("%d lifecycle checks hung, want at most %d: the rest should be skipped", hung, maxCheckHangs)
	}
	if hung+skipped != 6 {
		t.Errorf("%d hung + %d skipped, want 6 checks in all", hung, skipped)
	}
}

// Over HTTP, a server that refuses a tools/call with HTTP 503 while
// another is in flight (its body echoes the bearer token): the concurrency
// check fails, its detail does not carry the token, and the reproducer
// neither.
func TestHostileConcurrencyHTTPBusy(t *testing.T) {
	parallel(t)
	const bearer = "s3cret-bearer"
	inner := httpServer(t, false)
	var inFlight atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		call := bytes.Contains(body, []byte(`"tools/call"`))
		if call {
			if inFlight.Add(1) > 1 {
				inFlight.Add(-1)
				http.Error(w, "busy; your token was "+r.Header.Get("Authorization"), http.StatusServiceUnavailable)
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, inner.URL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		var answer []byte
		if err == nil {
			answer, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if call {
			// Before the answer is written: the client's next call may
			// follow at once.
			inFlight.Add(-1)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Headers: []string{"X-Tenant: t1"}, Bearer: bearer, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 2, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(rep)
	if bytes.Contains(js, []byte(bearer)) {
		t.Errorf("the bearer token is in the report")
	}
	c := checkByID(t, rep, "concurrency/lookup_user")
	if c.Status != report.CheckFail {
		t.Errorf("concurrency/lookup_user = %s %s (%s), want a failure", c.Status, c.Code, c.Detail)
	}
}

// A static audit (--no-calls) of servers that echo a secret everywhere,
// declare resources and prompts, or answer with huge discovery: no
// secret in the report, nothing called, no crash or hang anywhere.
func TestHostileNoCalls(t *testing.T) {
	parallel(t)
	const secret = "sk-live-4f9a8b7c6d5e4f3a2b1c"
	for _, fx := range []struct {
		name string
		args []string
	}{{"hostile-secret-echo", nil}, {"hostile-probes", []string{"-mode", "flood"}}, {"hostile-huge-discover", nil}, {"hostile-lifecycle", []string{"-id", "secret"}}} {
		rep := runFixture(t, fx.name, func(c *Config) {
			c.Command = append(c.Command, fx.args...)
			c.Env = []string{"API_TOKEN=" + secret, "DEBUG=true"}
			c.NoCalls = true
		})
		js, _ := json.Marshal(rep)
		if strings.Contains(string(js), secret) {
			t.Errorf("%s: the secret is in the report", fx.name)
		}
		if rep.Summary.Crash+rep.Summary.Hang+rep.Summary.ProtocolViolation > 0 || len(cases(rep)) > 0 {
			t.Errorf("%s: a static audit has cases or failures: %+v", fx.name, rep.Summary)
		}
		for _, c := range rep.Checks {
			if c.Code == string(report.Crash) || c.Code == string(report.Hang) {
				t.Errorf("%s: check %s = %s (%s) in a static audit", fx.name, c.ID, c.Code, c.Detail)
			}
		}
	}
}

// A server that answers one request at a time (JSON-RPC asks nothing
// more), each tools/call in 300 ms, under --timeout 1s: alone every call
// is quick, and 16 requests in flight together on one session are
// answered one after another, never a timeout without progress. That is
// no hang: the same-session check passes.
func TestHostileConcurrencySequentialServer(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-slow")
		c.Cases = 1
		c.Concurrency = MaxConcurrency
		c.Timeout = time.Second
		c.Cwd = t.TempDir()
	})
	if c := checkByID(t, rep, "concurrency/same-session"); c.Status != report.CheckPass {
		t.Errorf("concurrency/same-session = %s %s (%s), want a pass", c.Status, c.Code, c.Detail)
	}
	for _, c := range rep.Checks {
		if c.Code == string(report.Hang) {
			t.Errorf("%s: a false hang (%s)", c.ID, c.Detail)
		}
	}
}

// Its twin that deadlocks: tools/calls that overlap on one session are
// never answered. The same-session check is still a hang.
func TestHostileConcurrencyDeadlock(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-deadlock")
		c.Cases = 1
		c.Concurrency = 4
		c.Timeout = time.Second
		c.Cwd = t.TempDir()
	})
	if v := validCase(t, rep, "echo"); v.Verdict != report.OK {
		t.Fatalf("echo alone = %s (%s), want ok", v.Verdict, v.Detail)
	}
	if c := checkByID(t, rep, "concurrency/same-session"); c.Status != report.CheckFail || c.Code != string(report.Hang) {
		t.Errorf("concurrency/same-session = %s %s (%s), want a hang", c.Status, c.Code, c.Detail)
	}
}
