package hostile

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestServerCannotReadOurSecretsInProc runs the CLI and the Action with a
// server that copies its parent's /proc/PID/cmdline and /proc/PID/environ,
// as any server of the same user can: neither shows mcp-fuzz's secrets (an
// --env value, an -o path, the workflow's tokens, the Action's inputs),
// while the runs still saw them (the report lands at the hidden path).
// The box is off: this is mcp-fuzz's own hiding, which holds without it
// (in the box the server's $PPID is its launcher, and mcp-fuzz is out of
// its reach anyway; see box_test.go).
func TestServerCannotReadOurSecretsInProc(t *testing.T) {
	t.Parallel()
	cli, action := binaries(t)
	const (
		argvSecret = "argv-secret-4f1c9a7e2b"
		envToken   = "ghp_envtoken0123456789abcdefABCDEF"
		runtime    = "runtime-token-5e2d8c0b7a"
		inputToken = "ghs_inputtoken0123456789abcdef"
	)
	// The server dumps what it can read of its parent, then exits.
	dump := func(dir string) string {
		return "cat /proc/$PPID/cmdline > " + dir + "/cmdline; cat /proc/$PPID/environ > " + dir + "/environ"
	}
	check := func(t *testing.T, dir, out string, secrets ...string) {
		t.Helper()
		for _, f := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatalf("the server did not dump its parent's %s: %v\n%s", f, err, out)
			}
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("the server read %q in its parent's /proc/PID/%s: %q", s, f, b)
				}
			}
		}
	}
	run := func(t *testing.T, cmd *exec.Cmd) string {
		t.Helper()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
			t.Fatal(err)
		}
		if bytes.Contains(out.Bytes(), []byte("cannot hide")) || bytes.Contains(out.Bytes(), []byte("cannot be read")) {
			t.Errorf("mcp-fuzz could not hide its arguments:\n%s", out.Bytes())
		}
		return out.String()
	}

	t.Run("cli", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		report := filepath.Join(dir, "hidden-report-name.json")
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, cli, "--no-box", "--startup-timeout", "10", "--env", "API_KEY="+argvSecret, "-o", report, "--", "sh", "-c", dump(dir))
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_TOKEN=" + envToken, "DEPLOY_TOKEN=" + runtime}
		check(t, dir, run(t, cmd), argvSecret, "hidden-report-name", envToken, runtime)
	})
	t.Run("action", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, action)
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_ACTIONS=true",
			"GITHUB_WORKSPACE=" + dir, "GITHUB_OUTPUT=" + filepath.Join(dir, "out"), "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary"),
			"INPUT_COMMAND=sh -c '" + dump(dir) + "'", "INPUT_ENV=API_KEY=" + argvSecret, "INPUT_REPORT=hidden-report-name.json",
			"INPUT_STARTUP-TIMEOUT=10", "INPUT_COMMENT=off", "INPUT_BOX=false", "INPUT_GITHUB-TOKEN=" + inputToken,
			"ACTIONS_RUNTIME_TOKEN=" + runtime, "GITHUB_TOKEN=" + envToken,
		}
		check(t, dir, run(t, cmd), argvSecret, "hidden-report-name", envToken, runtime, inputToken)
	})
}
