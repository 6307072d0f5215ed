package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
)

// GitHub answers 404 for a pull request that does not exist as for one the
// token may not see, and 403 for a read-only token: the message names the
// pull request to check as well as the permission.
func TestCommentNoAccessNamesThePullRequestAndThePermission(t *testing.T) {
	t.Parallel()
	rep := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(rep, []byte(`{"version":"test","target":{"transport":"stdio","command":"srv"},"tools":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  func(*fakegithub.Server)
	}{
		{"not found", func(s *fakegithub.Server) { s.SetNotFound(true) }},
		{"read-only", func(s *fakegithub.Server) { s.SetReadOnly(true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := fakegithub.New(t)
			tc.set(gh)
			env := map[string]string{"GITHUB_API_URL": gh.URL, "GITHUB_TOKEN": "t", "MCP_FUZZ_COMMENT_AUTHOR": "github-actions[bot]"}
			var stdout, stderr bytes.Buffer
			app := &App{
				Stdout: &stdout, Stderr: &stderr, Version: "test",
				LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			}
			code := app.Run(context.Background(), []string{"comment", rep, "--pr", "7", "--repo", "o/r"})
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr:\n%s", code, &stderr)
			}
			for _, want := range []string{
				"no access to pull request comments",
				"Check that o/r#7 is the pull request meant (--pr, --repo)",
				"'pull-requests: write' on o/r",
			} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, &stderr)
				}
			}
		})
	}
}
