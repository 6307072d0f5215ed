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
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestProcessContainment runs servers that leave processes behind on
// purpose; mcp-fuzz must end within its bound with a report, and leave
// nothing running.
func TestProcessContainment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		// started are prefixes of the PID files the fixture must have
		// written, or the test proves nothing.
		started []string
	}{
		// A daemon in a new session holding the server's stdout and stderr.
		{"hostile-setsid-daemon", []string{"daemon"}},
		// A daemon in a new session with its descriptors closed.
		{"hostile-setsid-quiet", []string{"daemon"}},
		// A child that forks sleepers (which ignore SIGTERM) as it dies, and a
		// server that does the same as it exits.
		{"hostile-fork-at-exit", []string{"server-", "forker-"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			r := run(t, opts{server: []string{fixture.Build(t, tt.fixture)}, bound: 60 * time.Second}, "--timeout", "2s")
			assertNoProcessLeft(t, r)
			r.assertNoCanary(t)
			rep := r.ranToTheEnd(t)
			if c := caseByID(t, rep, "lookup_name/valid"); c.Verdict != report.OK {
				t.Errorf("lookup_name/valid: verdict %s (%s), want ok", c.Verdict, c.Detail)
			}
			recorded := pidFiles(r.piddir)
			t.Logf("recorded PIDs: %v", recorded)
			for _, prefix := range tt.started {
				if !slices.ContainsFunc(slices.Collect(maps.Keys(recorded)), func(name string) bool { return strings.HasPrefix(name, prefix) }) {
					t.Errorf("the fixture recorded no %s*.pid: the test proves nothing", prefix)
				}
			}
		})
	}
}

// TestInheritedDescriptors gives mcp-fuzz two extra descriptors (a file and
// a pipe, as a CI runner or a parent shell might) and checks that the server
// sees none of them: only its stdin, stdout and stderr.
func TestInheritedDescriptors(t *testing.T) {
	t.Parallel()
	file, err := os.Create(filepath.Join(t.TempDir(), "inherited"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	r := run(t, opts{
		server:     []string{fixture.Build(t, "hostile-inherited-fds")},
		extraFiles: []*os.File{file, pw},
		bound:      60 * time.Second,
	}, "--timeout", "2s")
	assertNoProcessLeft(t, r)
	r.assertNoCanary(t)
	r.ranToTheEnd(t)
	listing, err := os.ReadFile(filepath.Join(r.piddir, "fds.txt"))
	if err != nil {
		t.Fatalf("the server wrote no descriptor listing: %v", err)
	}
	// ls sees its own 0-2 (from the server) and the directory it reads: 3.
	// Anything else was inherited through mcp-fuzz.
	var fds []string
	for _, line := range strings.Split(string(listing), "\n") {
		f := strings.Fields(line)
		if len(f) >= 9 {
			fds = append(fds, f[8])
		}
	}
	if want := []string{"0", "1", "2", "3"}; !slices.Equal(fds, want) {
		t.Errorf("the server inherited descriptors %v, want only %v (3 is ls's own):\n%s", fds, want, listing)
	}
}

// TestInterrupt sends SIGINT to mcp-fuzz while a call hangs and a setsid
// daemon holds the server's pipes: mcp-fuzz must exit 130 within seconds,
// write the partial report, and leave nothing running.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	r := run(t, opts{
		server:    []string{fixture.Build(t, "hostile-hang-daemon")},
		interrupt: 3 * time.Second,
		bound:     60 * time.Second,
	}, "--timeout", "60s")
	assertNoProcessLeft(t, r)
	r.assertNoCanary(t)
	if r.afterInterrupt > 8*time.Second {
		t.Errorf("mcp-fuzz took %v to exit after SIGINT, want at most 8 s", r.afterInterrupt.Round(time.Millisecond))
	}
	if r.code != 130 {
		t.Errorf("exit %d after SIGINT, want 130\nstderr:\n%s", r.code, tail(r.stderr))
	}
	if pidFiles(r.piddir)["daemon"] == 0 {
		t.Error("the fixture did not record daemon.pid: the test proves nothing")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "r.json")); err != nil {
		t.Errorf("no partial report after SIGINT: %v", err)
	} else {
		logVerdicts(t, r.report(t))
	}
}

// TestFutureProtocolVersion runs a server that claims protocol version
// 2099-01-01, which no client knows: the run must finish, and the report
// must say which version the server claimed. (What it should make of it, a
// finding or a refusal, is for the specification to say.)
func TestFutureProtocolVersion(t *testing.T) {
	t.Parallel()
	r := run(t, opts{server: []string{fixture.Build(t, "hostile-future-version")}, bound: 60 * time.Second}, "--timeout", "5s")
	assertNoProcessLeft(t, r)
	r.assertNoCanary(t)
	const version = "2099-01-01"
	if r.code == 3 {
		if !strings.Contains(r.stderr, version) {
			t.Errorf("exit 3 without naming the version %s:\n%s", version, tail(r.stderr))
		}
		return
	}
	rep := r.ranToTheEnd(t)
	for _, f := range []string{"r.json", "r.md"} {
		b, err := os.ReadFile(filepath.Join(r.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), version) {
			t.Errorf("%s does not mention the claimed version %s", f, version)
		}
	}
	t.Logf("server.protocolVersion %q; findings: %d; lint: %d", rep.Server.ProtocolVersion, len(rep.Findings), len(rep.Lint))
}
