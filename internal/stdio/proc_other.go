//go:build !unix

package stdio

import (
	"fmt"
	"os"
	"syscall"
)

// Without process groups only the server itself is stopped; its children are not
// tracked.

var (
	sigTerm os.Signal = os.Interrupt // not deliverable on Windows: SIGKILL follows after the grace
	sigKill os.Signal = os.Kill
)

func beforeStart() {}

func sysProcAttr() *syscall.SysProcAttr { return nil }

func groupAlive(int) bool { return false }

func signalGroup(int, os.Signal) {}

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
