//go:build !unix

package stdio

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// Without process groups only the server itself is stopped; its children are not
// tracked, and descriptors are left as the operating system passes them.

var (
	sigTerm os.Signal = os.Interrupt // not deliverable on Windows: SIGKILL follows after the grace
	sigKill os.Signal = os.Kill
)

func beforeStart() {}

func serverEnv(env []string) ([]string, string) { return env, "" }

func sysProcAttr() *syscall.SysProcAttr { return nil }

// A tracker finds the processes of one server: here only the leader.
type tracker struct {
	leader *os.Process
	reaped <-chan struct{}
}

func newTracker(leader *os.Process, _ string, reaped <-chan struct{}) *tracker {
	return &tracker{leader: leader, reaped: reaped}
}

func (t *tracker) sweep(bool) (live, dead int) {
	if isClosed(t.reaped) {
		return 0, 0
	}
	return 1, 0
}

func (t *tracker) signal(sig os.Signal) {
	if sig == os.Kill {
		_ = t.leader.Kill()
		return
	}
	_ = t.leader.Signal(sig) // fails harmlessly where unsupported
}

func (t *tracker) freeze(bool) {}

func describeExit(ps *os.ProcessState, err error) string {
	if ps == nil {
		return fmt.Sprintf("unknown (%v)", err)
	}
	if ps.Exited() {
		return fmt.Sprintf("exit code %d", ps.ExitCode())
	}
	return ps.String()
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Kill:
		return "SIGKILL"
	case os.Interrupt:
		return "SIGINT"
	}
	return sig.String()
}

// sweepOrphans does nothing: without /proc no orphan can be told apart.
func sweepOrphans(func() bool, time.Time) {}
