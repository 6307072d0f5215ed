//go:build unix && !linux

package stdio

import (
	"os"
	"syscall"
	"time"
)

// Elsewhere than on Linux a server's processes are found by its process group
// only: a descendant that calls setsid, or moves to another group, is not
// stopped with it.

func beforeStart() { closeOnExec("") } // /dev/fd may list only 0-2

// serverEnv returns env unchanged: there is no way to look for a marker.
func serverEnv(env []string) ([]string, string) { return env, "" }

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// A tracker finds the processes of one server.
type tracker struct{ groupTracker }

func newTracker(leader *os.Process, _ string, reaped <-chan struct{}) *tracker {
	return &tracker{groupTracker{pgid: leader.Pid, leader: leader, reaped: reaped}}
}

// freeze does nothing: SIGKILL to the group is all there is.
func (t *tracker) freeze(bool) {}

// sweepOrphans does nothing: without /proc no orphan can be told apart.
func sweepOrphans(func() bool, time.Time) {}
