package hostile

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
)

// TestActionHTTPSecretEcho runs the Action against an HTTP server that
// echoes the Authorization and X-Api-Key headers of the headers input into
// its name, tools, errors and answers, as a crash: neither value may reach
// the log (but its mask), the job summary, the outputs, the files written
// or the pull request comment.
func TestActionHTTPSecretEcho(t *testing.T) {
	t.Parallel()
	_, action := binaries(t)
	h := &mcpHTTP{}
	h.answer = func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool {
		echo := "auth=" + r.Header.Get("Authorization") + " key=" + r.Header.Get("X-Api-Key")
		switch m.Method {
		case "initialize":
			writeJSON(w, m.ID, map[string]any{
				"protocolVersion": "2025-06-18",
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "echo " + echo, "version": "1.0.0+" + r.Header.Get("X-Api-Key")},
			}, nil)
		case "tools/list":
			writeJSON(w, m.ID, map[string]any{"tools": []any{map[string]any{
				"name":        "echo " + r.Header.Get("X-Api-Key"),
				"description": "Answers for " + echo,
				"inputSchema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"q": map[string]any{"type": "string"}},
					"required":   []string{"q"},
				},
				"annotations": map[string]any{"readOnlyHint": true},
			}}}, nil)
		case "tools/call":
			var p struct {
				Arguments map[string]json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if q := p.Arguments["q"]; q == nil || !strings.HasPrefix(string(q), `"`) {
				writeJSON(w, m.ID, nil, map[string]any{"code": -32603, "message": "internal error; " + echo, "data": echo})
				return true
			}
			writeJSON(w, m.ID, toolText("answered "+echo, false), nil)
		default:
			return false
		}
		return true
	}
	url := h.start(t)
	gh := fakegithub.New(t)
	ws, files := t.TempDir(), t.TempDir()
	event := filepath.Join(files, "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request":{"number":8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "GITHUB_ACTIONS": "true",
		"GITHUB_OUTPUT": filepath.Join(files, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(files, "summary"),
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "o/r",
		"GITHUB_API_URL": gh.URL, "GITHUB_WORKSPACE": ws, "GITHUB_JOB": "fuzz",
		"INPUT_URL": url, "INPUT_TIMEOUT": "5", "INPUT_CASES": "20",
		"INPUT_SARIF": "r.sarif", "INPUT_REPORT": "r.json",
		"INPUT_HEADERS":      "Authorization: Bearer " + canary + "\nX-Api-Key: " + canary,
		"INPUT_GITHUB-TOKEN": "ghs-hostile-token", "INPUT_COMMENT": "always",
	}
	cmd := exec.Command(action)
	cmd.Dir = ws
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	timer := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	err := cmd.Run()
	timer.Stop()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		t.Errorf("Action exit %d\nstdout:\n%s\nstderr:\n%s", code, tail(stdout.String()), tail(stderr.String()))
	}
	if !strings.Contains(strings.Join(h.headers(), "\n"), "Bearer "+canary) {
		t.Error("the server never got the bearer token: the test proves nothing")
	}
	out := stdout.String()
	for _, m := range []string{"::add-mask::" + canary + "\n", "::add-mask::Bearer " + canary + "\n"} {
		out = strings.ReplaceAll(out, m, "")
	}
	texts := map[string]string{"stdout (but the masks)": out, "stderr": stderr.String()}
	for name, file := range map[string]string{"job summary": "GITHUB_STEP_SUMMARY", "outputs file": "GITHUB_OUTPUT"} {
		b, _ := os.ReadFile(env[file])
		texts[name] = string(b)
	}
	cs := gh.Comments("o", "r", 8)
	if len(cs) != 1 {
		t.Errorf("%d comments, want 1\n%s", len(cs), tail(out))
	}
	for _, c := range cs {
		texts["comment body"] = c.Body
	}
	if !strings.Contains(texts["comment body"], "auth=") {
		t.Errorf("the comment does not quote the server: the test proves nothing")
	}
	assertNoCanary(t, ws, texts)
}
