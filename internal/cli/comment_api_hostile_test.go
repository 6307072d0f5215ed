package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestCommentHostileAPIMessages checks that what a hostile GitHub API says
// in its error messages (a GraphQL error, a 422's message) reaches stderr
// as one line each, with no terminal escape sequence: in a workflow step a
// line starting "::" is a workflow command.
func TestCommentHostileAPIMessages(t *testing.T) {
	t.Parallel()
	evil := "nope\n::error::pwned\r\n::add-mask::x\x1b[2J\x1b]8;;https://evil.example\x07"
	srv := fakegithub.NewRefusing(t, evil)
	rep := &report.Report{Version: "test", Target: report.Target{Transport: "stdio", Command: "./x"}, Server: report.Server{Name: "x"}}
	rep.Normalize()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_TOKEN": "tok", "GITHUB_API_URL": srv.URL + "/", "GITHUB_GRAPHQL_URL": srv.URL + "/graphql"}
	var stdout, stderr bytes.Buffer
	app := &App{Stdout: &stdout, Stderr: &stderr, Version: "test",
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := app.Run(context.Background(), []string{"comment", file, "--pr", "1", "--repo", "o/r"})
	if code != 1 {
		t.Errorf("exit %d; want 1 (GitHub refused)", code)
	}
	out := stdout.String() + stderr.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsAny(line, "\x1b\x07\r") {
			t.Errorf("injected line %q in output:\n%s", line, out)
		}
	}
	if !strings.Contains(out, "pwned") {
		t.Errorf("the API's message is not shown at all:\n%s", out)
	}
}
