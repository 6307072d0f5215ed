package hostile

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// ownSecret is in mcp-fuzz's own environment only: no server is given it.
const ownSecret = "own-deploy-secret-4d2b8e61f0"

// TestBoxKeepsMcpFuzzEnvironmentAway runs a server that reads the
// environment and command line of its ancestors through /proc and repeats
// what it read in its name, descriptions and answers. In the box it reads
// none of mcp-fuzz's environment; with --no-box it does (the fixture works),
// and every format carries the warning.
func TestBoxKeepsMcpFuzzEnvironmentAway(t *testing.T) {
	t.Parallel()
	snoop := fixture.Build(t, "hostile-proc-snoop")
	for _, noBox := range []bool{false, true} {
		t.Run(map[bool]string{false: "box", true: "no-box"}[noBox], func(t *testing.T) {
			t.Parallel()
			var flags []string
			if noBox {
				flags = append(flags, "--no-box")
			}
			r := run(t, opts{server: []string{snoop}, ownEnv: []string{"OWN_DEPLOY_TOKEN=" + ownSecret}}, append(flags, "--timeout", "5s", "--fail-on", "none")...)
			rep := r.ranToTheEnd(t)
			md, _ := os.ReadFile(filepath.Join(r.dir, "r.md"))
			if rep.Run == nil {
				t.Fatal("no run.containment in the report")
			}
			read := rep.Server.Name
			if strings.Contains(read, "OWN_DEPLOY_TOKEN") {
				t.Errorf("the server read mcp-fuzz's own variable: %q", read)
			}
			if noBox {
				// mcp-fuzz's environment block (what it kept visible) is
				// open to the server without the box.
				if !strings.Contains(read, "started-by-environ=read") {
					t.Fatalf("--no-box: the fixture could not read mcp-fuzz's environment (%q): the test proves nothing", read)
				}
				if rep.Run.Box || !strings.Contains(rep.Run.Warning, "--no-box") {
					t.Errorf("--no-box: run = %+v", rep.Run)
				}
				if !strings.Contains(r.stdout+r.stderr, "the box is off") || !strings.Contains(string(md), "the box is off") {
					t.Errorf("--no-box: the warning is missing from the terminal or the Markdown report")
				}
				return
			}
			if !strings.Contains(read, "started-by-environ=denied") {
				t.Errorf("boxed: the server read mcp-fuzz's environment: %q", read)
			}
			if !rep.Run.Box || strings.Contains(rep.Run.Warning, "box is off") || len(rep.Run.Containment) == 0 {
				t.Errorf("boxed: run = %+v", rep.Run)
			}
			if !strings.Contains(string(md), "<b>Containment:</b>") || rep.Run.Summary == "" || !strings.Contains(r.stdout+r.stderr, "\nbox     ") {
				t.Errorf("boxed: no containment line in the Markdown report or the terminal")
			}
			assertNoneContains(t, r, ownSecret)
		})
	}
}

// assertNoneContains fails when any artefact or output of r holds s.
func assertNoneContains(t *testing.T, r *result, s string) {
	t.Helper()
	if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
		t.Errorf("%q on mcp-fuzz's stdout or stderr", s)
	}
	for _, f := range outputs {
		b, _ := os.ReadFile(filepath.Join(r.dir, f))
		if strings.Contains(string(b), s) {
			t.Errorf("%q in %s", s, f)
		}
	}
}

// TestServerSignalsDoNotReachMcpFuzz runs servers that send SIGSTOP or
// SIGKILL to mcp-fuzz while it calls them, and leave a daemon: the run
// still ends by itself with every report, and nothing is left running.
func TestServerSignalsDoNotReachMcpFuzz(t *testing.T) {
	t.Parallel()
	snoop := fixture.Build(t, "hostile-proc-snoop")
	for _, sig := range []string{"STOP", "KILL"} {
		t.Run(sig, func(t *testing.T) {
			t.Parallel()
			r := run(t, opts{server: []string{snoop, "-signal", sig, "-daemon"}, bound: 60 * time.Second}, "--timeout", "5s", "--fail-on", "none")
			if r.code != 0 {
				t.Errorf("exit %d, want 0\n%s", r.code, tail(r.stderr))
			}
			r.ranToTheEnd(t)
			for _, f := range outputs {
				if _, err := os.Stat(filepath.Join(r.dir, f)); err != nil {
					t.Errorf("no %s: %v", f, err)
				}
			}
			assertNoProcessLeft(t, r)
		})
	}
}

// TestKilledMcpFuzzTakesItsServersAlong kills mcp-fuzz outright (SIGKILL:
// no chance to stop anything) once its server has started a daemon in a
// session of its own: the box's PID namespace dies with mcp-fuzz, daemon
// included.
func TestKilledMcpFuzzTakesItsServersAlong(t *testing.T) {
	t.Parallel()
	snoop := fixture.Build(t, "hostile-proc-snoop")
	daemonStarted := func(r *result) bool {
		return slices.ContainsFunc(slices.Collect(maps.Keys(pidFiles(r.piddir))), func(name string) bool { return strings.HasPrefix(name, "sleeper") })
	}
	r := run(t, opts{server: []string{snoop, "-daemon", "-slow", "500ms"}, killWhen: daemonStarted, bound: 60 * time.Second}, "--timeout", "5s")
	if !daemonStarted(r) {
		t.Fatal("the daemon never started: the test proves nothing")
	}
	if r.code != -1 {
		t.Fatalf("mcp-fuzz exit %d: it was not killed (it ended first?)\n%s", r.code, tail(r.stderr))
	}
	assertNoProcessLeft(t, r)
}
