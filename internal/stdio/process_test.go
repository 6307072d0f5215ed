//go:build linux

package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testGrace = 200 * time.Millisecond

// start launches cfg with a short grace and stops it when the test ends.
func start(t *testing.T, cfg Config) *Process {
	t.Helper()
	if cfg.KillGrace == 0 {
		cfg.KillGrace = testGrace
	}
	if cfg.Env == nil {
		cfg.Env = []string{"PATH=" + os.Getenv("PATH")}
	}
	p, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Stop() })
	return p
}

func call(id int, method, params string) *jsonrpc.Request {
	rid, _ := jsonrpc.MakeID(float64(id))
	req := &jsonrpc.Request{ID: rid, Method: method}
	if params != "" {
		req.Params = json.RawMessage(params)
	}
	return req
}

func sh(script string) Config { return Config{Path: "sh", Args: []string{"-c", script}} }

// violations collects what OnViolation reports.
type violations struct {
	mu sync.Mutex
	vs []Violation
}

func (v *violations) add(x Violation) { v.mu.Lock(); v.vs = append(v.vs, x); v.mu.Unlock() }
func (v *violations) get() []Violation {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Violation(nil), v.vs...)
}

func readTimeout(t *testing.T, c mcp.Connection) (jsonrpc.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Read(ctx)
}

func waitDone(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("process did not exit")
	}
}

// groupMembers lists the live (non-zombie) processes whose process group is pgid,
// read independently of the code under test.
func groupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(data)
		rest := s[strings.LastIndex(s, ")")+2:] // "state ppid pgrp ..."
		f := strings.Fields(rest)
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			found = append(found, strings.TrimSpace(s))
		}
	}
	return found
}

// waitSleeps waits until n processes of group pgid run sleep (the
// background commands of a test's shell have started), for at most ten
// seconds.
func waitSleeps(t *testing.T, pgid, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		sleeps := 0
		for _, m := range groupMembers(t, pgid) {
			if strings.Contains(m, " (sleep) ") {
				sleeps++
			}
		}
		if sleeps >= n || time.Now().After(deadline) {
			return
		}
	}
}

func TestStartNotFound(t *testing.T) {
	for _, path := range []string{"no-such-program-mcp-fuzz", "./no-such-program", "/nonexistent/server"} {
		_, err := Start(Config{Path: path, Env: []string{"PATH=/usr/bin:/bin"}})
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Start(%q) = %v, want ErrNotFound", path, err)
		} else if !strings.Contains(err.Error(), path) {
			t.Errorf("Start(%q) error %q does not name the program", path, err)
		}
	}
}

func TestStartUsesServerPATH(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "only-here")
	os.WriteFile(script, []byte("#!/bin/sh\necho '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'\n"), 0o755)
	// The caller's PATH does not have it; the server's does.
	p := start(t, Config{Path: "only-here", Env: []string{"PATH=" + dir + ":/usr/bin:/bin"}})
	if _, err := readTimeout(t, p.Connection()); err != nil {
		t.Fatalf("Read: %v", err)
	}
	// A server PATH without it wins over the caller's PATH.
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	if _, err := Start(Config{Path: "only-here", Env: []string{"PATH=/usr/bin:/bin"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Start with a server PATH that lacks it = %v, want ErrNotFound", err)
	}
}

func TestRelativePathIsRelativeToDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "srv"), []byte("#!/bin/sh\npwd >&2\n"), 0o755)
	p := start(t, Config{Path: "./srv", Dir: dir})
	waitDone(t, p)
	p.Stop()
	if got := strings.TrimSpace(p.Stderr()); got != dir {
		t.Errorf("server ran in %q, want %q", got, dir)
	}
}

func TestEnvIsConfigEnvAndMarker(t *testing.T) {
	t.Setenv("SECRET_X", "hunter2")
	for _, tc := range []struct {
		env  []string
		want []string
	}{
		{nil, nil}, // nil means empty, never the caller's environment
		{[]string{"A=1", "B=2"}, []string{"A=1", "B=2"}},
		// A marker in Env (say, of an enclosing run) is replaced, not kept.
		{[]string{markerName + "=outer", "B=2"}, []string{"B=2"}},
	} {
		var v violations
		p, err := Start(Config{Path: "/usr/bin/env", Env: tc.env, OnViolation: v.add, KillGrace: testGrace})
		if err != nil {
			t.Fatal(err)
		}
		waitDone(t, p)
		p.Stop()
		var got []string
		markers := 0
		for _, x := range v.get() {
			if strings.HasPrefix(x.Excerpt, markerName+"=") && x.Excerpt != markerName+"=outer" {
				markers++ // the one variable Start adds
				continue
			}
			got = append(got, x.Excerpt)
		}
		if markers != 1 {
			t.Errorf("Env %q: server saw %d markers, want 1", tc.env, markers)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Env %q: server saw %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestGarbageIsReportedAndSkipped(t *testing.T) {
	var v violations
	cfg := sh(`echo hello
echo '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}'
echo '{"foo":1}'
printf '{"jsonrpc":"2.0","id":2,"result":{}}\r\n'
echo '{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"x"}}'
echo
echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}'
printf 'no newline at the end'`)
	cfg.OnViolation = v.add
	p := start(t, cfg)
	c := p.Connection()

	var got []string
	for {
		msg, err := readTimeout(t, c)
		if err != nil {
			if !errors.Is(err, ErrClosed) || !errors.Is(err, io.EOF) {
				t.Fatalf("Read error = %v, want ErrClosed wrapping io.EOF", err)
			}
			break
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			got = append(got, fmt.Sprintf("response %v %s", m.ID.Raw(), m.Result))
		case *jsonrpc.Request:
			got = append(got, "request "+m.Method)
		}
	}
	want := []string{
		`response 1 {"ok":true}`,
		`response 2 {}`,
		`request notifications/message`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("messages:\n got %q\nwant %q", got, want)
	}
	vs := v.get()
	wantV := []Violation{
		{Kind: KindNonJSONRPC, Excerpt: "hello"},
		{Kind: KindMalformedEnvelope, Excerpt: `{"foo":1}`},
		{Kind: KindMalformedEnvelope, Excerpt: `{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"x"}}`},
		{Kind: KindNonJSONRPC, Excerpt: "no newline at the end"},
	}
	if len(vs) != len(wantV) {
		t.Fatalf("violations = %+v, want %d", vs, len(wantV))
	}
	for i := range vs {
		if vs[i].Kind != wantV[i].Kind || vs[i].Excerpt != wantV[i].Excerpt || vs[i].Reason == "" {
			t.Errorf("violation %d = %+v, want %+v and a reason", i, vs[i], wantV[i])
		}
	}
}

func TestLineTooLong(t *testing.T) {
	var v violations
	cfg := sh(`head -c 5000 /dev/zero | tr '\0' x; echo
echo '{"jsonrpc":"2.0","id":1,"result":{}}'`)
	cfg.MaxLine = 100
	cfg.OnViolation = v.add
	p := start(t, cfg)
	msg, err := readTimeout(t, p.Connection())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if r, ok := msg.(*jsonrpc.Response); !ok || r.ID.Raw() != int64(1) {
		t.Errorf("Read = %#v, want the response after the long line", msg)
	}
	vs := v.get()
	if len(vs) != 1 || vs[0].Kind != KindLineTooLong || vs[0].Excerpt != strings.Repeat("x", excerptLen) {
		t.Errorf("violations = %+v, want one line_too_long with an excerptLen-byte excerpt", vs)
	}
}

func TestWriteReadRoundTripConcurrent(t *testing.T) {
	p := start(t, Config{Path: "cat"}) // echoes every request back
	c := p.Connection()
	const n = 50
	big := strings.Repeat("y", 100<<10) // larger than a pipe buffer
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := call(i, "tools/call", `{"pad":"`+big+`"}`)
			if err := c.Write(context.Background(), req); err != nil {
				t.Errorf("Write %d: %v", i, err)
			}
		}()
	}
	seen := map[int64]bool{}
	for range n {
		msg, err := readTimeout(t, c)
		if err != nil {
			t.Fatalf("Read after %d messages: %v", len(seen), err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != "tools/call" || len(req.Params) < len(big) {
			t.Fatalf("Read = %#v, want an intact echoed request", msg)
		}
		seen[req.ID.Raw().(int64)] = true
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("got %d distinct ids, want %d", len(seen), n)
	}
}

func TestWriteRespectsContext(t *testing.T) {
	p := start(t, sh("sleep 300")) // never reads stdin
	c := p.Connection()
	req := call(1, "x", `{"pad":"`+strings.Repeat("z", 1<<20)+`"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	err := c.Write(ctx, req)
	if err == nil || time.Since(begin) > 5*time.Second {
		t.Fatalf("Write to a server that does not read = %v after %v, want an error soon", err, time.Since(begin))
	}
	// Part of the line went into the pipe: the stream is broken for good.
	if err2 := c.Write(context.Background(), req); err2 == nil {
		t.Error("Write after a cut-short write succeeded")
	}
}

func TestReadRespectsContextAndClose(t *testing.T) {
	p := start(t, sh("sleep 300"))
	c := p.Connection()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read with expiring context = %v, want DeadlineExceeded", err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("blocked Read after Close = %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
	req := call(1, "ping", "")
	if err := c.Write(context.Background(), req); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
}

func TestExitCode(t *testing.T) {
	p := start(t, sh("echo bye >&2; exit 3"))
	waitDone(t, p)
	if got := p.ExitStatus(); got != "exit code 3" {
		t.Errorf("ExitStatus = %q, want %q", got, "exit code 3")
	}
	if _, err := readTimeout(t, p.Connection()); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after exit = %v, want ErrClosed", err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop after exit: %v", err)
	}
	if p.Signalled() != "" {
		t.Errorf("Signalled = %q, want none", p.Signalled())
	}
	if got := p.Stderr(); got != "bye\n" {
		t.Errorf("Stderr = %q", got)
	}
}

func TestCrashSignal(t *testing.T) {
	p := start(t, sh("kill -SEGV $$"))
	waitDone(t, p)
	if got := p.ExitStatus(); got != "signal SIGSEGV" {
		t.Errorf("ExitStatus = %q, want %q", got, "signal SIGSEGV")
	}
}

func TestRunningStatus(t *testing.T) {
	p := start(t, sh("sleep 300"))
	if got := p.ExitStatus(); got != "" {
		t.Errorf("ExitStatus while running = %q, want empty", got)
	}
	select {
	case <-p.Done():
		t.Error("Done closed while running")
	default:
	}
}

func TestStopGentleWhenServerExitsOnEOF(t *testing.T) {
	p := start(t, Config{Path: "cat"})
	begin := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if d := time.Since(begin); d > exitWait+time.Second {
		t.Errorf("Stop took %v for a server that exits on end of stdin", d)
	}
	if p.Signalled() != "" || p.ExitStatus() != "exit code 0" {
		t.Errorf("Signalled = %q, ExitStatus = %q; want none and exit code 0", p.Signalled(), p.ExitStatus())
	}
}

func TestStopLeavesNoOrphans(t *testing.T) {
	p := start(t, sh("sleep 300 & sleep 300 & sleep 300"))
	waitSleeps(t, p.PID(), 3)
	if m := groupMembers(t, p.PID()); len(m) < 2 {
		t.Fatalf("expected the shell and its children in group %d, found %q", p.PID(), m)
	}
	begin := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("Stop took %v", d)
	}
	if m := groupMembers(t, p.PID()); len(m) > 0 {
		t.Errorf("after Stop, group %d still has %q", p.PID(), m)
	}
	if got := p.ExitStatus(); got != "signal SIGTERM" {
		t.Errorf("ExitStatus = %q, want signal SIGTERM", got)
	}
	select {
	case <-p.Done():
	default:
		t.Error("Done not closed after Stop")
	}
}

func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	p := start(t, sh(`trap "" TERM; sleep 300 & sleep 300`))
	waitSleeps(t, p.PID(), 2)
	begin := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	d := time.Since(begin)
	if d < testGrace || d > 5*time.Second {
		t.Errorf("Stop took %v, want about exitWait + grace (%v)", d, exitWait+testGrace)
	}
	if got := p.ExitStatus(); got != "signal SIGKILL" {
		t.Errorf("ExitStatus = %q, want signal SIGKILL", got)
	}
	if p.Signalled() != "SIGKILL" {
		t.Errorf("Signalled = %q, want SIGKILL", p.Signalled())
	}
	if m := groupMembers(t, p.PID()); len(m) > 0 {
		t.Errorf("after Stop, group %d still has %q", p.PID(), m)
	}
}

func TestLeaderExitEndsGroup(t *testing.T) {
	// The leader exits but a child keeps stdout open: Read must still end, and the
	// child must not outlive it.
	p := start(t, sh(`sleep 300 & echo '{"jsonrpc":"2.0","id":1,"result":{}}'; exit 0`))
	c := p.Connection()
	if _, err := readTimeout(t, c); err != nil {
		t.Fatalf("Read: %v (the last message before the exit must arrive)", err)
	}
	if _, err := readTimeout(t, c); !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after the leader exited = %v, want ErrClosed", err)
	}
	if m := groupMembers(t, p.PID()); len(m) > 0 {
		t.Errorf("group %d still has %q after its leader exited", p.PID(), m)
	}
	if got := p.ExitStatus(); got != "exit code 0" {
		t.Errorf("ExitStatus = %q", got)
	}
}

func TestStopConcurrentAndIdempotent(t *testing.T) {
	p := start(t, sh("sleep 300"))
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
			if p.ExitStatus() == "" {
				t.Error("Stop returned before the process was reaped")
			}
		}()
	}
	wg.Wait()
	if err := p.Connection().Close(); err != nil {
		t.Errorf("Close after Stop: %v", err)
	}
}

func TestStderrTailAndLines(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	cfg := sh(`i=0; while [ $i -lt 2000 ]; do echo "line $i" >&2; i=$((i+1)); done; printf 'last' >&2`)
	cfg.StderrLimit = 1000
	cfg.OnStderr = func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }
	p := start(t, cfg)
	waitDone(t, p)
	p.Stop()
	tail := p.Stderr()
	if len(tail) != 1000 || !strings.HasSuffix(tail, "line 1999\nlast") {
		t.Errorf("Stderr = %d bytes ending %q, want the last 1000", len(tail), tail[max(0, len(tail)-20):])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 2001 || lines[0] != "line 0" || lines[2000] != "last" {
		t.Errorf("OnStderr got %d lines (first %q), want 2001", len(lines), lines[:min(1, len(lines))])
	}
}

// TestMCPClient drives the go-sdk client against a go-sdk server through a
// Process: the handshake, a tool call with stderr, and a crash mid-call.
func TestMCPClient(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var v violations
	var stderrMu sync.Mutex
	var stderrLines []string
	p := start(t, Config{
		Path:        exe,
		Env:         []string{helperEnv + "=mcp"},
		OnViolation: v.add,
		OnStderr: func(l string) {
			stderrMu.Lock()
			stderrLines = append(stderrLines, l)
			stderrMu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, p.Transport(), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if _, err := client.Connect(ctx, p.Transport(), nil); err == nil {
		t.Error("a second connection to the same process succeeded")
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "helper" {
		t.Errorf("server name = %q", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatalf("CallTool echo: %v", err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hi" {
		t.Errorf("echo result = %#v", res.Content)
	}
	if vs := v.get(); len(vs) != 1 || vs[0].Excerpt != "helper server starting" {
		t.Errorf("violations = %+v, want the start-up banner", vs)
	}
	// stderr is another pipe: the line may arrive after the response.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stderrMu.Lock()
		got := strings.Join(stderrLines, "\n")
		stderrMu.Unlock()
		if strings.Contains(got, "panic: not really") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("OnStderr lines = %q, want the panic line", got)
			break
		}
	}

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exit"}); err == nil {
		t.Error("CallTool exit succeeded, want a closed connection")
	}
	waitDone(t, p)
	if got := p.ExitStatus(); got != "exit code 3" {
		t.Errorf("ExitStatus = %q, want exit code 3", got)
	}
	cs.Close()
}

func TestExcerptIsPrintable(t *testing.T) {
	got := excerpt([]byte("a\x1b[31mb\tc\xffd\u202ee"))
	if want := `a\x1b[31mb\x09c\xffd\u202ee`; got != want {
		t.Errorf("excerpt = %q, want %q", got, want)
	}
	if got := excerpt(bytes.Repeat([]byte("é"), excerptLen)); len(got) > excerptLen+4 {
		t.Errorf("excerpt of %d bytes is %d bytes", 2*excerptLen, len(got))
	}
}
