package spawn

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Lifetime bounds every process this package starts: a sleeper that nobody
// killed still ends by itself.
const Lifetime = 300 * time.Second

// roleEnv names the role a fixture binary re-executed by [Self] plays.
const roleEnv = "HOSTILE_ROLE"

// Dir returns the PID directory, or "" when the tests gave none.
func Dir() string { return os.Getenv("PIDDIR") }

// Record writes the PID of this process to PIDDIR/NAME-PID.pid (when PIDDIR
// is set): the PID as /proc numbers it, which is the tests' numbering even
// when the server runs in a PID namespace of its own (mcp-fuzz's box),
// where getpid says otherwise.
func Record(name string) {
	if Dir() == "" {
		return
	}
	pid := os.Getpid()
	if self, err := os.Readlink("/proc/self"); err == nil {
		if n, err := strconv.Atoi(self); err == nil {
			pid = n
		}
	}
	path := filepath.Join(Dir(), fmt.Sprintf("%s-%d.pid", name, pid))
	_ = os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

// Shell starts sh -c script in a new session (setsid) with the server's
// environment, stdout and stderr when inherit is true (else /dev/null), and
// waits up to 10 s for the file PIDDIR/wait to appear, which the script
// writes. It returns at once when PIDDIR is not set.
func Shell(script, wait string, inherit bool) {
	if Dir() == "" {
		return
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if inherit {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "spawn: starting sh: %v\n", err)
		os.Exit(1)
	}
	awaitFile(filepath.Join(Dir(), wait))
}

// awaitFile waits up to 10 s for path to exist and be non-empty.
func awaitFile(path string) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return
		}
	}
	fmt.Fprintf(os.Stderr, "spawn: %s did not appear\n", path)
}

// Where a process started by [Self] goes.
type Where int

const (
	SameGroup  Where = iota // the parent's process group
	NewGroup                // a process group of its own (setpgid), same session
	NewSession              // a session of its own (setsid)
)

// Self starts this same binary in the given role (see [Main]), placed as
// where says, with stdio on /dev/null, and does not wait for it. It returns
// the child's PID, or 0 when PIDDIR is not set.
func Self(role string, where Where) int {
	if Dir() == "" {
		return 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "spawn: %v\n", err)
		return 0
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), roleEnv+"="+role)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: where == NewSession, Setpgid: where == NewGroup}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "spawn: starting %s: %v\n", role, err)
		return 0
	}
	go func() { _ = cmd.Wait() }() // reap it if it dies while we live
	return cmd.Process.Pid
}

// Main plays the role this binary was started in by [Self] and exits; it
// returns at once when the binary is the server itself. Call it first in
// main.
//
// Roles:
//   - "sleeper": record the PID, ignore SIGTERM, SIGINT and SIGHUP, sleep
//     for [Lifetime];
//   - "forker": record the PID and wait; on SIGTERM, or when its parent dies,
//     start three sleepers (one in a new session, one in a new process group,
//     one in its own group), then exit.
func Main() {
	switch role := os.Getenv(roleEnv); role {
	case "":
		return
	case "sleeper":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		Record("sleeper")
		time.Sleep(Lifetime)
		os.Exit(0)
	case "forker":
		Record("forker")
		forker()
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "spawn: unknown role %q\n", role)
		os.Exit(2)
	}
}

// forker waits for SIGTERM or its parent's death, then forks and returns.
func forker() {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	parent := os.Getppid()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.After(Lifetime)
wait:
	for {
		select {
		case <-term:
			break wait
		case <-tick.C:
			if os.Getppid() != parent {
				break wait
			}
		case <-end:
			return
		}
	}
	Self("sleeper", NewSession)
	Self("sleeper", NewGroup)
	Self("sleeper", SameGroup)
	time.Sleep(50 * time.Millisecond) // let them start: a fork in the last moment
}

// OnExit runs f when the process gets SIGTERM, and then exits with status
// 143, so that a server can fork as it is being killed. It returns a
// function that runs f too (once in all), for the server's own end of input.
func OnExit(f func()) func() {
	var once sync.Once
	run := func() { once.Do(f) }
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		run()
		os.Exit(143)
	}()
	return run
}
