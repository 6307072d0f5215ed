package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// spawnCounting wraps a fixture in a shell that appends a line to a log on
// every start, so a test can count the server processes a run started.
func spawnCounting(t *testing.T, name string) (command []string, spawns func() int) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "spawns")
	bin := fixture.Build(t, name)
	command = []string{"/bin/sh", "-c", `echo x >> "$1"; exec "$2"`, "sh", log, bin}
	return command, func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "x")
	}
}

// A -32603 answer comes from a live server: the session is kept. Before,
// every internal_error verdict restarted the server (141 spawns for 180
// calls on a server that fails every call).
func TestInternalErrorsKeepTheSession(t *testing.T) {
	parallel(t)
	cmd, spawns := spawnCounting(t, "internal-error")
	rep := runFixture(t, "internal-error", func(c *Config) { c.Command = cmd })
	crashes := withVerdict(rep, report.Crash)
	if len(crashes) < 2 {
		t.Fatalf("want several internal_error crashes, got %d", len(crashes))
	}
	for _, c := range crashes {
		if c.Crash == nil || c.Crash.How != report.CrashInternalError {
			t.Errorf("%s: crash %+v, want internal_error", c.ID, c.Crash)
		}
	}
	if n := spawns(); n != 1 {
		t.Errorf("%d server processes for %d internal errors, want 1", n, len(crashes))
	}
}

// A server that exits on bad input is restarted once per exit, and no more.
func TestProcessExitRestartsOncePerExit(t *testing.T) {
	parallel(t)
	cmd, spawns := spawnCounting(t, "crash-exit")
	rep := runFixture(t, "crash-exit", func(c *Config) { c.Command = cmd; c.Cases = 6 })
	exits := 0
	for _, c := range withVerdict(rep, report.Crash) {
		if c.Crash != nil && c.Crash.How == report.CrashExit {
			exits++
			if c.Crash.ExitStatus == "" {
				t.Errorf("%s: no exit status", c.ID)
			}
		}
	}
	if exits == 0 {
		t.Fatal("no process exit")
	}
	// The first process, then one per exit (the last exit may end the run
	// with no further case to need a new process).
	if n := spawns(); n < exits || n > exits+1 {
		t.Errorf("%d spawns for %d exits, want %d or %d", n, exits, exits, exits+1)
	}
}

// A hung call followed by an answered ping keeps the session; after two
// hangs the tool's remaining cases are not run, and the report says so.
func TestHangCutoff(t *testing.T) {
	parallel(t)
	cmd, spawns := spawnCounting(t, "hang")
	rep := runFixture(t, "hang", func(c *Config) { c.Command = cmd; c.Timeout = 500 * time.Millisecond; c.Cases = 10 })
	hangs := withVerdict(rep, report.Hang)
	if len(hangs) != DefaultMaxHangs {
		t.Fatalf("%d hangs, want %d (then the cutoff)", len(hangs), DefaultMaxHangs)
	}
	notRun := withVerdict(rep, report.NotRun)
	if len(notRun) == 0 {
		t.Fatal("no case was cut off after two hangs")
	}
	for _, c := range notRun {
		if !strings.Contains(c.Detail, "2 earlier cases of the tool got no complete answer") {
			t.Errorf("%s: detail %q does not say why it was not run", c.ID, c.Detail)
		}
	}
	if last := hangs[len(hangs)-1]; !strings.Contains(last.Detail, "remaining") {
		t.Errorf("the last hang does not say the rest was cut off: %q", last.Detail)
	}
	// The fixture ignores the cancelled call but answers ping: no restart.
	if n := spawns(); n != 1 {
		t.Errorf("%d spawns, want 1: the server stayed alive", n)
	}
}

func TestHangCutoffCanBeTurnedOff(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hang", func(c *Config) { c.Timeout = 300 * time.Millisecond; c.Cases = 6; c.MaxHangs = -1 })
	if n := len(withVerdict(rep, report.NotRun)); n != 0 {
		t.Errorf("%d cases not run with the cutoff off", n)
	}
	if n := len(withVerdict(rep, report.Hang)); n <= DefaultMaxHangs {
		t.Errorf("%d hangs: every bad case should have run", n)
	}
}

// --parallel changes how long a run takes, not what it finds: the same
// tools in the same order with the same verdicts.
func TestParallelGivesTheSameReport(t *testing.T) {
	parallel(t)
	cmd := []string{fixture.Build(t, "clean")}
	verdicts := func(parallel int) []string {
		rep := runFixture(t, "clean", func(c *Config) { c.Command = cmd; c.Parallel = parallel; c.Cases = 12 })
		if rep.Config.Parallel != parallel || rep.Config.MaxHangs != DefaultMaxHangs || rep.Config.MaxResponseBytes != DefaultMaxResponse {
			t.Errorf("settings recorded: %+v", rep.Config)
		}
		var out []string
		for _, tl := range rep.Tools {
			for _, c := range tl.Cases {
				out = append(out, tl.Name+" "+c.ID+" "+string(c.Verdict)+" "+strings.Join(c.Flags, ","))
			}
		}
		return out
	}
	one, four := verdicts(1), verdicts(4)
	if len(one) < 10 {
		t.Fatalf("only %d cases: the fixture has too few tools to compare", len(one))
	}
	if !reflect.DeepEqual(one, four) {
		t.Errorf("--parallel 1 and 4 differ:\n%s\nvs\n%s", strings.Join(one, "\n"), strings.Join(four, "\n"))
	}
}

// An answer that never ends costs a timeout like a hang: it counts towards
// the cutoff, and the session is replaced at once (no ping can be read
// behind an unfinished line).
func TestUnfinishedAnswersCountTowardsTheCutoff(t *testing.T) {
	// Not parallel: it judges wall-clock times (slow, hang), which
	// tests running alongside would distort.
	cmd, spawns := spawnCounting(t, "hostile-huge-answers")
	rep := runFixture(t, "hostile-huge-answers", func(c *Config) {
		c.Command = cmd
		c.Tools = []string{"never_ends"}
		c.Timeout = 300 * time.Millisecond
		c.MaxResponse = 64 << 10
	})
	pv := withVerdict(rep, report.ProtocolViolation)
	if len(pv) != DefaultMaxHangs {
		t.Fatalf("%d protocol violations, want %d, then the cutoff", len(pv), DefaultMaxHangs)
	}
	if len(withVerdict(rep, report.NotRun)) == 0 {
		t.Error("no case was cut off after two unfinished answers")
	}
	for _, c := range pv {
		if c.DurationMs > 5000 {
			t.Errorf("%s took %.0f ms", c.ID, c.DurationMs)
		}
	}
	// One process per unfinished answer, no more (and no ping wait).
	if n := spawns(); n != DefaultMaxHangs+1 && n != DefaultMaxHangs {
		t.Errorf("%d spawns for %d unfinished answers", n, len(pv))
	}
}
