//go:build linux

package stdio

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Hostile servers: each one tries to outlive Stop, to keep Stop from returning, or
// to see file descriptors it was not given. The bounds below are "did not hang"
// guards, not speed claims.

const hangGuard = 20 * time.Second

// stopWithin calls Stop and fails the test if it has not returned after hangGuard.
// Stop may keep running in the background; the test's cleanups unblock it.
func stopWithin(t *testing.T, p *Process) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Errorf("Stop did not return within %v", hangGuard)
	}
}

// startOf returns the start time of pid (field 22 of /proc/PID/stat), or 0 when
// there is no such process.
func startOf(pid int) uint64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// A started is a process the test's server started, identified by pid and start
// time so that a reused pid is never taken for it.
type started struct {
	pid   int
	start uint64
}

// exists reports whether the process still has a /proc entry: alive or a zombie.
func (s started) exists() bool { return startOf(s.pid) == s.start }

// reported waits for the server to write "name=PID" on stderr and returns that
// process. A cleanup kills it if it is still there when the test ends.
func reported(t *testing.T, p *Process, name string) started {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + name + `=(\d+)$`)
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(p.Stderr()); m != nil {
			pid, _ := strconv.Atoi(m[1])
			s := started{pid, startOf(pid)}
			if s.start == 0 {
				t.Fatalf("%s %d is already gone", name, pid)
			}
			t.Cleanup(func() {
				if s.exists() {
					_ = syscall.Kill(s.pid, syscall.SIGKILL)
				}
			})
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never reported %s; stderr %q", name, p.Stderr())
		}
	}
}

// waitExec waits until s runs prog (its argv[0] ends in prog).
func waitExec(t *testing.T, s started, prog string) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.pid))
		if argv0, _, _ := bytes.Cut(data, []byte{0}); strings.HasSuffix(string(argv0), prog) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never ran %s", s.pid, prog)
		}
	}
}

func assertGone(t *testing.T, what string, s started) {
	t.Helper()
	if s.exists() {
		state := "alive"
		if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid)); err == nil {
			state = string(data)
		}
		t.Errorf("%s %d outlived Stop: %s", what, s.pid, strings.TrimSpace(state))
	}
}

func sleepPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStopKillsSetsidDaemonHoldingPipes(t *testing.T) {
	// The daemon leaves the process group but keeps stdout and stderr: before,
	// Stop waited for it to close them, that is forever.
	p := start(t, sh(`setsid sh -c 'echo daemon=$$ >&2; exec sleep 300' & sleep 300`))
	daemon := reported(t, p, "daemon")
	stopWithin(t, p)
	assertGone(t, "setsid daemon", daemon)
}

func TestStopKillsSetsidDaemonWithoutPipes(t *testing.T) {
	// This daemon lets go of the pipes, so Stop returned, but left it running.
	p := start(t, sh(`setsid sh -c 'echo daemon=$$ >&2; exec >/dev/null 2>&1 </dev/null; exec sleep 300' & sleep 300`))
	daemon := reported(t, p, "daemon")
	waitExec(t, daemon, "sleep")
	stopWithin(t, p)
	assertGone(t, "setsid daemon", daemon)
}

func TestStopKillsDaemonThatClearsItsEnvironment(t *testing.T) {
	// Double fork: the subshell exits at once, so the daemon's parent is gone, it
	// is in its own session, and it has none of the server's environment.
	p := start(t, sh(`(setsid env -i sh -c 'echo daemon=$$ >&2; exec >/dev/null 2>&1 </dev/null; exec `+sleepPath(t)+` 300' &); sleep 300`))
	daemon := reported(t, p, "daemon")
	waitExec(t, daemon, "sleep")
	stopWithin(t, p)
	assertGone(t, "daemon without environment", daemon)
}

func init() {
	helpers["orphan"] = runOrphanMaker
	helpers["sleep"] = func() {
		fmt.Fprintf(os.Stderr, "daemon=%d\n", os.Getpid())
		os.Stderr.Close()
		os.Stdout.Close()
		time.Sleep(300 * time.Second)
	}
}

// runOrphanMaker starts the test binary as a sleeper in a process group of its
// own, with nothing in its environment but what makes it sleep, and exits: the
// sleeper is an orphan that kept none of the server's marks.
func runOrphanMaker() {
	exe, err := os.Executable()
	if err == nil {
		cmd := exec.Command(exe)
		cmd.Env = []string{helperEnv + "=sleep"}
		cmd.Stderr = os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "orphan:", err)
		os.Exit(1)
	}
}

func TestOwnChildrenKillsOrphanInItsOwnGroup(t *testing.T) {
	// This orphan stayed in mcp-fuzz's session, in a group of its own, without
	// the marker: only OwnChildren lets Stop take it for the server's.
	ownChildren.Store(true)
	t.Cleanup(func() { ownChildren.Store(false) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := sh(helperEnv + `=orphan "$0"; sleep 300`)
	cfg.Args = append(cfg.Args, exe)
	p := start(t, cfg)
	daemon := reported(t, p, "daemon")
	stopWithin(t, p)
	assertGone(t, "orphan in its own group", daemon)
}

func TestStopKillsDaemonAfterLeaderExits(t *testing.T) {
	// The leader exits by itself; its daemon must not outlive the process.
	p := start(t, sh(`setsid sh -c 'echo daemon=$$ >&2; exec >/dev/null 2>&1 </dev/null; exec sleep 300' & sleep 0.2`))
	daemon := reported(t, p, "daemon")
	waitExec(t, daemon, "sleep")
	waitDone(t, p)
	stopWithin(t, p)
	assertGone(t, "setsid daemon", daemon)
}

// withToken lists the processes whose command line contains token.
func withToken(token string) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte(token)) {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/proc/"), "/cmdline"))
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestStopKillsForkChain(t *testing.T) {
	// Each generation starts the next and exits at once, so at every moment the
	// live process's parent has just died. A chain ends by itself after some
	// thousands of generations in case the test fails.
	for _, tc := range []struct {
		name, next string // how a generation starts the next
	}{
		{"one new session", `"$0"`},
		{"a new session each generation", `setsid "$0"`},
		{"no environment either", `setsid env -i "$0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chain := filepath.Join(t.TempDir(), "chain.sh")
			script := "#!/bin/sh\nn=${1:-0}\n[ \"$n\" -lt 20000 ] || exit 0\n" + tc.next + " $((n+1)) &\nexit 0\n"
			if err := os.WriteFile(chain, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // stop, then kill, whatever is left of the chain
				for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					pids := withToken(chain)
					if len(pids) == 0 {
						return
					}
					for _, pid := range pids {
						_ = syscall.Kill(pid, syscall.SIGSTOP)
					}
					for _, pid := range withToken(chain) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			cfg := sh(`setsid "$0" </dev/null >/dev/null 2>&1 & sleep 300`)
			cfg.Args = append(cfg.Args, chain)
			p := start(t, cfg)
			for deadline := time.Now().Add(hangGuard); len(withToken(chain)) == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the chain never started")
				}
			}
			time.Sleep(300 * time.Millisecond) // some generations
			stopWithin(t, p)
			for range 5 { // a scan of /proc is not atomic: look a few times
				if pids := withToken(chain); len(pids) > 0 {
					t.Fatalf("after Stop the chain still runs: %v", pids)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

func TestStopReturnsWhenOnViolationBlocks(t *testing.T) {
	release := make(chan struct{})
	cfg := sh(`echo not json; sleep 300`)
	entered := make(chan struct{}, 1)
	cfg.OnViolation = func(Violation) {
		entered <- struct{}{}
		<-release
	}
	p := start(t, cfg)
	t.Cleanup(func() { close(release) }) // runs before start's Stop
	select {
	case <-entered:
	case <-time.After(hangGuard):
		t.Fatal("OnViolation was never called")
	}
	stopWithin(t, p)
}

// listFDs returns the descriptors a server started with cfg sees, as listed by
// ls /proc/self/fd (which adds its own directory descriptor).
func listFDs(t *testing.T) []int {
	t.Helper()
	p := start(t, sh(`ls /proc/self/fd >&2`))
	waitDone(t, p)
	stopWithin(t, p)
	var fds []int
	for _, f := range strings.Fields(p.Stderr()) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("ls /proc/self/fd printed %q", p.Stderr())
		}
		fds = append(fds, n)
	}
	slices.Sort(fds)
	return fds
}

func TestServerSeesOnlyStandardFDs(t *testing.T) {
	// Descriptors Go did not open (here: opened without O_CLOEXEC, as a parent
	// process's would be) must not reach the server.
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	const high = 251
	if err := syscall.Dup2(fd, high); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(high) })

	got := listFDs(t)
	// 0, 1 and 2, and the directory ls reads, which takes the lowest free number.
	if want := []int{0, 1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("server saw descriptors %v, want %v (leaked: %d and %d)", got, want, fd, high)
	}
}

func TestServersStoppedTogetherKillTheirEscapedDaemons(t *testing.T) {
	// Each server leaves a daemon without environment in a session of its
	// own, then the servers are stopped at once: none of them stops alone,
	// so no stop may take the others' orphans. The last one out must.
	var ps []*Process
	var daemons []started
	for range 3 {
		p := start(t, sh(`(setsid env -i sh -c 'echo daemon=$$ >&2; exec >/dev/null 2>&1 </dev/null; exec `+sleepPath(t)+` 300' &); sleep 300`))
		d := reported(t, p, "daemon")
		waitExec(t, d, "sleep")
		ps, daemons = append(ps, p), append(daemons, d)
	}
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Go(func() { stopWithin(t, p) })
	}
	wg.Wait()
	for _, d := range daemons {
		assertGone(t, "daemon of a server stopped with others", d)
	}
}
