package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestCrashByClosedConnection(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "closed-stdout", func(c *Config) { c.Cases = 4 })
	crashes := withVerdict(rep, report.Crash)
	if len(crashes) == 0 {
		t.Fatal("no crash verdict")
	}
	if crashes[0].Crash.How != report.CrashClosed {
		t.Fatalf("crash = %+v, want how=closed (the process was still alive)", crashes[0].Crash)
	}
}

func TestStderrPanicFlag(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "stderr-panic", nil)
	flagged := 0
	for _, c := range cases(rep) {
		if c.HasFlag(report.FlagStderrPanic) {
			flagged++
			if c.Verdict != report.Handled && c.Verdict != report.Rejected {
				t.Errorf("%s: verdict %s", c.ID, c.Verdict)
			}
		}
	}
	if flagged == 0 {
		t.Fatal("no stderr_panic flag")
	}
	if validCase(t, rep, "lookup").HasFlag(report.FlagStderrPanic) {
		t.Error("the valid call, which prints nothing, is flagged")
	}
}

func TestSlowAndBloatedFlags(t *testing.T) {
	// Not parallel: it judges wall-clock times (slow, hang), which
	// tests running alongside would distort.
	rep := runFixture(t, "slow-bloated", func(c *Config) { c.Cases = 1; c.SlowMs = 300 })
	want := map[string][]string{"slow_lookup": {report.FlagSlow}, "bloated_lookup": {report.FlagBloated}, "quick_lookup": nil}
	for tool, flags := range want {
		got := validCase(t, rep, tool).Flags
		if strings.Join(got, ",") != strings.Join(flags, ",") {
			t.Errorf("%s flags = %v, want %v", tool, got, flags)
		}
	}
}

func TestPassEnvReachesTheServer(t *testing.T) {
	parallel(t)
	const secret = "passed-through-4e1d"
	env := map[string]string{"API_TOKEN": secret, "UNRELATED_SECRET": "must-not-pass"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	rep := runFixture(t, "leak-env", func(c *Config) { c.LookupEnv = lookup; c.PassEnv = []string{"API_TOKEN"} })
	if rep.Summary.Leak == 0 {
		t.Fatal("--pass-env API_TOKEN did not reach the server (or its echo was not flagged)")
	}
	rep = runFixture(t, "leak-env", func(c *Config) { c.LookupEnv = lookup })
	if rep.Summary.Leak != 0 {
		t.Fatal("API_TOKEN reached the server without --pass-env: the environment is not minimal")
	}
}

func TestCwd(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	rep := runFixture(t, "clean", func(c *Config) {
		// A relative program path is resolved against --cwd.
		bin := c.Command[0]
		if err := os.Symlink(bin, filepath.Join(dir, "server")); err != nil {
			t.Fatal(err)
		}
		c.Command = []string{"./server"}
		c.Cwd = dir
		c.Cases = 1
	})
	if rep.Summary.OK == 0 {
		t.Fatalf("server in --cwd did not run: %+v", rep.Summary)
	}
}

// A server that crashes and then cannot be started again ends the run after
// three failed reconnects, and says so; the remaining cases are not_run.
func TestRunEndsAfterThreeFailedReconnects(t *testing.T) {
	parallel(t)
	marker := filepath.Join(t.TempDir(), "started")
	bin := fixture.Build(t, "crash-exit")
	script := `if [ -e "$1" ]; then echo "cannot start twice" >&2; exit 1; fi; touch "$1"; exec "$2"`
	rep := runFixture(t, "crash-exit", func(c *Config) {
		c.Command = []string{"sh", "-c", script, "sh", marker, bin}
	})
	if !strings.Contains(rep.EndedEarly, "failed 3 times") {
		t.Fatalf("EndedEarly = %q", rep.EndedEarly)
	}
	if rep.Summary.NotRun == 0 || rep.Summary.Crash != 1 {
		t.Fatalf("summary = %+v, want one crash then not_run cases", rep.Summary)
	}
}

// A finding's shell reproducer, run by hand, shows the same failure: the
// crash-exit fixture dies with exit code 2 and "fatal: city missing".
func TestReproducerReproducesTheCrash(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "crash-exit", func(c *Config) { c.Cases = 3 })
	var shell string
	for _, f := range rep.Findings {
		if f.Code == "crash" && f.CaseID == "get_weather/missing_required/city" {
			shell = f.Reproducer.Shell
		}
	}
	if shell == "" {
		t.Fatalf("no crash finding with a reproducer: %+v", rep.Findings)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", shell).CombinedOutput()
	if err != nil {
		t.Logf("reproducer pipeline: %v", err)
	}
	if !strings.Contains(string(out), "fatal: city missing") {
		t.Fatalf("reproducer did not show the crash; output:\n%s", out)
	}
	if strings.Contains(string(out), `"id":2`) {
		t.Fatalf("the crashing call was answered:\n%s", out)
	}
}
