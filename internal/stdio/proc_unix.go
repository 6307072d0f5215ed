//go:build unix

package stdio

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

var (
	sigTerm os.Signal = syscall.SIGTERM
	sigKill os.Signal = syscall.SIGKILL
)

// closeOnExec marks every descriptor above stderr close-on-exec, so that the
// descriptors mcp-fuzz inherited from its own parent (Go opens its own with
// O_CLOEXEC) do not reach a server. It lists the descriptors in dir, or, when dir
// is empty or cannot be read, tries every number below the descriptor limit
// (at most 65536).
func closeOnExec(dir string) {
	if dir != "" {
		if d, err := os.Open(dir); err == nil {
			names, err := d.Readdirnames(-1)
			d.Close()
			if err == nil {
				for _, name := range names {
					if fd, err := strconv.Atoi(name); err == nil && fd > 2 {
						syscall.CloseOnExec(fd)
					}
				}
				return
			}
		}
	}
	n := uint64(1 << 16)
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && uint64(lim.Cur) < n {
		n = uint64(lim.Cur)
	}
	for fd := 3; uint64(fd) < n; fd++ {
		syscall.CloseOnExec(fd) // EBADF for numbers not in use
	}
}

// groupTracker finds a server's processes by its process group alone: one that
// left the group is not found.
type groupTracker struct {
	pgid   int
	leader *os.Process
	reaped <-chan struct{} // closed once exec.Cmd has reaped the leader
}

// sweep reports one live process while the leader is unreaped or the group has a
// member (zombies included), else none.
func (g *groupTracker) sweep(bool) (live, dead int) {
	if !isClosed(g.reaped) {
		return 1, 0
	}
	if err := syscall.Kill(-g.pgid, 0); err == nil || err == syscall.EPERM {
		return 1, 0
	}
	return 0, 0
}

// signal sends sig to the group and to the leader, which may have left it.
func (g *groupTracker) signal(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(-g.pgid, s) // ESRCH: nobody left
	}
	if !isClosed(g.reaped) {
		_ = g.leader.Signal(sig)
	}
}

// describeExit turns a wait result into "exit code N" or "signal SIGNAME".
func describeExit(ps *os.ProcessState, err error) string {
	if ps == nil {
		return fmt.Sprintf("unknown (%v)", err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Exited():
			return fmt.Sprintf("exit code %d", ws.ExitStatus())
		case ws.Signaled():
			return "signal " + signalName(ws.Signal())
		}
	}
	return ps.String()
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "SIGABRT",
	syscall.SIGALRM: "SIGALRM",
	syscall.SIGBUS:  "SIGBUS",
	syscall.SIGFPE:  "SIGFPE",
	syscall.SIGHUP:  "SIGHUP",
	syscall.SIGILL:  "SIGILL",
	syscall.SIGINT:  "SIGINT",
	syscall.SIGKILL: "SIGKILL",
	syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGSYS:  "SIGSYS",
	syscall.SIGTERM: "SIGTERM",
	syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGUSR1: "SIGUSR1",
	syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGXFSZ: "SIGXFSZ",
}

func signalName(sig os.Signal) string {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return sig.String()
	}
	if name, ok := signalNames[s]; ok {
		return name
	}
	return fmt.Sprintf("%d (%v)", int(s), s)
}
