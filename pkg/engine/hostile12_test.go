package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// alivePIDs returns the pids recorded in dir/*.pid that are still running
// (zombies aside), and kills them so that a failing test leaves nothing.
func alivePIDs(t *testing.T, dir, glob string) []int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, glob))
	var live []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
			continue
		}
		live = append(live, pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return live
}

// Each of the N sessions of the concurrency checks starts an orphan that
// left its session and emptied its environment (no marker names it), and
// that outlives the server: none may survive the run, though several
// servers ran at once when they were orphaned.
func TestHostileConcurrencyOrphans(t *testing.T) {
	pidDir := t.TempDir()
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-daemon")
		c.Env = append(c.Env, "PIDDIR="+pidDir)
		c.Cases = 2
		c.Concurrency = 4
		c.Cwd = t.TempDir()
	})
	if c := checkByID(t, rep, "concurrency/echo"); c.Status != report.CheckPass {
		t.Errorf("concurrency/echo = %+v, want a pass", c)
	}
	files, _ := filepath.Glob(filepath.Join(pidDir, "orphan-*.pid"))
	if len(files) < 5 {
		t.Fatalf("%d orphans recorded, want one per session (at least 5): the fixture did not run as meant", len(files))
	}
	if live := alivePIDs(t, pidDir, "orphan-*.pid"); len(live) > 0 {
		t.Errorf("%d of %d orphans left running after the run: %v", len(live), len(files), live)
	}
}

// A tool that hangs only while another session is open: the concurrency
// check says hang, once, within the checks' budget, and the call alone
// stays ok; nothing is left running.
func TestHostileConcurrencyHangShared(t *testing.T) {
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-hang-shared")
		c.Cases = 2
		c.Concurrency = 3
		c.Timeout = time.Second
		c.Cwd = t.TempDir()
	})
	if v := validCase(t, rep, "echo"); v.Verdict != report.OK {
		t.Fatalf("echo alone = %s (%s), want ok", v.Verdict, v.Detail)
	}
	c := checkByID(t, rep, "concurrency/echo")
	if c.Status != report.CheckFail || c.Code != string(report.Hang) {
		t.Errorf("concurrency/echo = %+v, want a hang", c)
	}
}

// A server that ignores SIGTERM and the end of its input costs a kill
// grace to stop (measured: 16 sessions of one such server stopped one
// after another made the concurrency checks of one tool take 41 s). The
// concurrency checks stop the N sessions of a check together: every close
// is under way before any has finished.
func TestConcurrencyClosesTogether(t *testing.T) {
	const n = MaxConcurrency
	var entered sync.WaitGroup
	entered.Add(n)
	all := make(chan struct{})
	go func() { entered.Wait(); close(all) }()
	var together atomic.Int32
	sessions := make([]*session, n)
	for i := range sessions {
		sessions[i] = &session{cancel: func() {
			entered.Done()
			select {
			case <-all:
				together.Add(1)
			case <-time.After(2 * time.Second):
			}
		}}
		sessions[i].lateAnswers = i
	}
	cr := &concurrencyRun{}
	cr.closeAll(sessions)
	if got := together.Load(); got != n {
		t.Errorf("%d of %d closes were under way together; the rest waited for others to finish", got, n)
	}
	if want := n * (n - 1) / 2; cr.lateAnswers != want {
		t.Errorf("late answers = %d, want %d", cr.lateAnswers, want)
	}
}

// The same end to end: 16 sessions of a server that ignores SIGTERM are
// stopped, and the concurrency check still passes (the server answers
// well) with nothing left running.
func TestHostileConcurrencyStubborn(t *testing.T) {
	rep := runFixture(t, "hostile-concurrency", func(c *Config) {
		c.Command = append(c.Command, "-stubborn")
		c.Cases = 1
		c.Concurrency = MaxConcurrency
		c.Cwd = t.TempDir()
	})
	if c := checkByID(t, rep, "concurrency/echo"); c.Status != report.CheckPass {
		t.Errorf("concurrency/echo = %+v, want a pass", c)
	}
}
