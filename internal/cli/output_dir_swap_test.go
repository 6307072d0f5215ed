//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// swapSetup makes base/reports and base/victim, and prepares a run of
// the server command(base) (["true"] when command is nil) with -o
// base/reports/r.json and -o base/reports/r.md: the directories are
// opened as before the server starts, and closed at the end of the test.
func swapSetup(t *testing.T, command func(base string) []string) (base string, a *App, stderr *bytes.Buffer, o audit.Options, outs outputs) {
	t.Helper()
	base = t.TempDir()
	for _, dir := range []string{"reports", "victim"} {
		if err := os.Mkdir(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stderr = new(bytes.Buffer)
	a = &App{Stdout: new(bytes.Buffer), Stderr: stderr, Version: "test", LookupEnv: func(string) (string, bool) { return "", false }}
	cmd := []string{"true"}
	if command != nil {
		cmd = command(base)
	}
	st := audit.Settings{Command: cmd, Given: options.Values{
		"config": os.DevNull,
		"output": []string{filepath.Join(base, "reports", "r.json"), filepath.Join(base, "reports", "r.md")},
	}}
	o, _, outs, code, ok := a.prepare(st)
	if !ok {
		t.Fatalf("prepare: exit %d: %s", code, stderr)
	}
	t.Cleanup(outs.close)
	return base, a, stderr, o, outs
}

// swapReport is the report written.
func swapReport() *report.Report {
	return &report.Report{Server: report.Server{Name: "swap-test"}}
}

// assertNothingIn fails unless dir holds nothing.
func assertNothingIn(t *testing.T, dir string) {
	t.Helper()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("%s holds %v (%v), want nothing", dir, entries, err)
	}
}

// TestOutputDirSwapClean: with the directory left alone, both reports are
// written at their paths, without a warning.
func TestOutputDirSwapClean(t *testing.T) {
	t.Parallel()
	base, a, stderr, _, outs := swapSetup(t, nil)
	if code := a.emit(swapReport(), "", outs, render.SARIFOptions{}, false); code != ExitOK {
		t.Fatalf("emit = %d: %s", code, stderr)
	}
	for _, name := range []string{"r.json", "r.md"} {
		if b, err := os.ReadFile(filepath.Join(base, "reports", name)); err != nil || !bytes.Contains(b, []byte("swap-test")) {
			t.Errorf("%s = %.80q, %v", name, b, err)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr)
	}
	assertNothingIn(t, filepath.Join(base, "victim"))
}

// TestOutputDirSwapToLink: the server renames the directory of the -o
// paths and puts a symbolic link to another directory in its place after
// the check and before the write. The reports land in the original
// directory, with a warning; the link's target gets nothing.
func TestOutputDirSwapToLink(t *testing.T) {
	t.Parallel()
	base, a, stderr, _, outs := swapSetup(t, nil)
	reports := filepath.Join(base, "reports")
	if err := os.Rename(reports, reports+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "victim"), reports); err != nil {
		t.Fatal(err)
	}
	if code := a.emit(swapReport(), "", outs, render.SARIFOptions{}, false); code != ExitOK {
		t.Fatalf("emit = %d: %s", code, stderr)
	}
	assertNothingIn(t, filepath.Join(base, "victim"))
	for _, name := range []string{"r.json", "r.md"} {
		if b, err := os.ReadFile(filepath.Join(reports+".orig", name)); err != nil || !bytes.Contains(b, []byte("swap-test")) {
			t.Errorf("the original directory's %s = %.80q, %v", name, b, err)
		}
		want := "mcp-fuzz: warning: the directory of " + filepath.Join(reports, name) + " was moved or replaced during the run"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestOutputDirRemovedForLink: the server removes the directory and puts
// a symbolic link to another directory in its place. The writes fail,
// naming the path; nothing reaches the link's target.
func TestOutputDirRemovedForLink(t *testing.T) {
	t.Parallel()
	base, a, stderr, _, outs := swapSetup(t, nil)
	reports := filepath.Join(base, "reports")
	if err := os.Remove(reports); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "victim"), reports); err != nil {
		t.Fatal(err)
	}
	if code := a.emit(swapReport(), "", outs, render.SARIFOptions{}, false); code != ExitUsage {
		t.Errorf("emit = %d, want %d: %s", code, ExitUsage, stderr)
	}
	assertNothingIn(t, filepath.Join(base, "victim"))
	path := filepath.Join(reports, "r.json")
	want := "mcp-fuzz: writing " + path + ": " + path + ": directory " + reports + " was removed during the run"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stderr.String(), "mcp-fuzz: 2 of 2 outputs not written") {
		t.Errorf("stderr does not count the failures:\n%s", stderr)
	}
}

// TestOutputDirSwapInterrupted: a server that swaps the directory for a
// link and hangs until SIGINT. The partial report written on the
// interrupt goes through the directory opened before the run too.
func TestOutputDirSwapInterrupted(t *testing.T) {
	t.Parallel()
	server := fixture.Build(t, "hang")
	base, a, _, o, outs := swapSetup(t, func(base string) []string {
		script := `cd "$1" && mv reports reports.orig && ln -s victim reports && touch swapped && exec "$0"`
		return []string{"sh", "-c", script, server, base}
	})
	// Read while the run writes its progress lines.
	stderr := &lockedBuffer{}
	a.Stderr = stderr
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		// Interrupt once the server swapped the directory and answered
		// the handshake: the run has started on a tool ("> slow_lookup:
		// …"), whose bad-input calls hang.
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(base, "swapped")); err == nil && strings.Contains("\n"+stderr.String(), "\n> ") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel(audit.Interrupt{Signal: os.Interrupt})
	}()
	if code := a.audit(ctx, o, render.SARIFOptions{}, outs); code != ExitInterrupted {
		t.Fatalf("audit = %d, want %d: %s", code, ExitInterrupted, stderr)
	}
	if !strings.Contains(stderr.String(), "writing the partial report") {
		t.Fatalf("no partial report:\n%s", stderr)
	}
	assertNothingIn(t, filepath.Join(base, "victim"))
	for _, name := range []string{"r.json", "r.md"} {
		if _, err := os.Stat(filepath.Join(base, "reports.orig", name)); err != nil {
			t.Errorf("the original directory's %s: %v", name, err)
		}
	}
	if !strings.Contains(stderr.String(), "warning: the directory of "+filepath.Join(base, "reports", "r.json")+" was moved") {
		t.Errorf("no warning for the moved directory:\n%s", stderr)
	}
}
