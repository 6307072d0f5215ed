package hostile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestSecretEcho runs a server that echoes its API_TOKEN everywhere a server
// can put text (serverInfo, instructions, descriptions, schema description,
// default and enum, results, isError texts, JSON-RPC errors with data,
// stderr before an exit): the canary must appear in no artefact, and the
// echo must be flagged as a leak.
func TestSecretEcho(t *testing.T) {
	t.Parallel()
	r := run(t, opts{server: []string{fixture.Build(t, "hostile-secret-echo")}, bound: 90 * time.Second}, "--timeout", "5s")
	assertNoProcessLeft(t, r)
	r.assertNoCanary(t)
	rep := r.ranToTheEnd(t)
	leaks := 0
	for _, c := range cases(rep) {
		if hasFlag(c, "leak") {
			leaks++
		}
	}
	if leaks == 0 {
		t.Error("no case has the leak flag, though the server echoes the token in its answers")
	}
	if c := caseByID(t, rep, "plain/valid"); !hasFlag(c, "leak") {
		t.Errorf("plain/valid answers with the token but has flags %v (%s)", c.Flags, c.Detail)
	}
}

// TestNoSecretNoLeak runs the same server with only DEBUG=true, which it
// echoes the same way: a boolean is no secret, so nothing is a leak.
func TestNoSecretNoLeak(t *testing.T) {
	t.Parallel()
	r := run(t, opts{
		server:   []string{fixture.Build(t, "hostile-secret-echo")},
		env:      []string{"DEBUG=true"},
		noCanary: true,
		bound:    90 * time.Second,
	}, "--timeout", "5s")
	assertNoProcessLeft(t, r)
	rep := r.ranToTheEnd(t)
	if !strings.Contains(caseByID(t, rep, "plain/valid").Response, "DEBUG=true") {
		t.Error("plain/valid does not show DEBUG=true: the server did not echo it, the test proves nothing")
	}
	for _, c := range cases(rep) {
		if hasFlag(c, "leak") {
			t.Errorf("%s is flagged leak for echoing DEBUG=true: %s", c.ID, c.Detail)
		}
	}
	if rep.Summary.Leak != 0 {
		t.Errorf("summary counts %d leaks, want 0", rep.Summary.Leak)
	}
}

// TestActionSecretEcho runs the Action binary, as GitHub runs it on a pull
// request, against the echoing server with the canary in its env input: the
// canary may appear on stdout only in its ::add-mask:: line, and nowhere
// else: not in the job summary, the outputs, the files written to the
// workspace, or the comment posted on the pull request.
func TestActionSecretEcho(t *testing.T) {
	t.Parallel()
	_, action := binaries(t)
	server := fixture.Build(t, "hostile-secret-echo")
	gh := fakegithub.New(t)
	ws, files, piddir := t.TempDir(), t.TempDir(), t.TempDir()
	r := &result{dir: ws, piddir: piddir}
	t.Cleanup(func() { killLeft(r) })
	event := filepath.Join(files, "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":7,"pull_request":{"number":7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"PATH":                os.Getenv("PATH"),
		"HOME":                os.Getenv("HOME"),
		"GITHUB_ACTIONS":      "true",
		"GITHUB_OUTPUT":       filepath.Join(files, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(files, "summary"),
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   event,
		"GITHUB_REPOSITORY":   "o/r",
		"GITHUB_API_URL":      gh.URL,
		"GITHUB_WORKSPACE":    ws,
		"GITHUB_JOB":          "fuzz",
		"INPUT_COMMAND":       server,
		"INPUT_TIMEOUT":       "5",
		"INPUT_SARIF":         "r.sarif",
		"INPUT_REPORT":        "r.json",
		"INPUT_ENV":           "API_TOKEN=" + canary + "\nPIDDIR=" + piddir,
		"INPUT_GITHUB-TOKEN":  "ghs-hostile-token",
		"INPUT_COMMENT":       "always",
	}
	cmd := exec.Command(action)
	cmd.Dir = ws
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(90*time.Second, func() {
		t.Errorf("the Action still running after 90 s: killing it (PID %d)", cmd.Process.Pid)
		_ = cmd.Process.Kill()
	})
	err := cmd.Wait()
	timer.Stop()
	r.ended = uptime()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running the Action: %v", err)
	}
	code := cmd.ProcessState.ExitCode()
	t.Logf("Action exit %d after %v", code, time.Since(start).Round(time.Millisecond))
	assertNoProcessLeft(t, r)
	if code != 0 && code != 1 {
		t.Errorf("Action exit %d, want 0 or 1 (it fuzzed the server)\nstdout:\n%s\nstderr:\n%s", code, tail(stdout.String()), tail(stderr.String()))
	}

	// The one place the canary may appear: its mask, which must come first.
	out := stdout.String()
	mask := "::add-mask::" + canary + "\n"
	if !strings.HasPrefix(out, "::add-mask::") || strings.Count(out, mask) != 1 {
		t.Errorf("stdout does not start by masking the canary once:\n%.2000s", out)
	}
	out = strings.Replace(out, mask, "", 1)

	texts := map[string]string{"stdout (but the mask)": out, "stderr": stderr.String()}
	for name, file := range map[string]string{"job summary": "GITHUB_STEP_SUMMARY", "outputs file": "GITHUB_OUTPUT"} {
		b, err := os.ReadFile(env[file])
		if err != nil {
			t.Errorf("the Action wrote no %s: %v", name, err)
		}
		texts[name] = string(b)
	}
	if !strings.HasPrefix(texts["job summary"], "## mcp-fuzz") {
		t.Errorf("the job summary is not a report:\n%.500s", texts["job summary"])
	}
	comments := gh.Comments("o", "r", 7)
	if len(comments) != 1 {
		t.Errorf("%d comments on the pull request, want 1\nstdout:\n%.3000s", len(comments), out)
	}
	for _, c := range comments {
		texts["comment body"] = c.Body
	}
	for _, f := range []string{"r.json", "r.sarif"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("the Action did not write %s: %v", f, err)
		}
	}
	assertNoCanary(t, ws, texts)
}
