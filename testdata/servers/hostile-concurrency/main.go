// Command hostile-concurrency is a raw fixture server that misbehaves only
// where the concurrency checks (--concurrency N) look, one flag each; alone,
// its one polite tool, echo, answers every call:
//
//   - -stubborn: it ignores SIGTERM and the end of its input (it lives on
//     until SIGKILL), as a server stuck in a shutdown hook does;
//   - -daemon: each process starts, when PIDDIR is set, a grandchild that
//     leaves its session, empties its environment and outlives its parent
//     (which exits at once), so that it is an orphan nobody's marker names;
//   - -hang-shared: a tools/call made while another process of the fixture
//     is alive in the same working directory is never answered;
//   - -slow: each tools/call is answered 300 ms later, cancelled or not
//     (the server does not support cancellation, which it may not), one
//     request at a time;
//   - -deadlock: tools/calls on one session that overlap are never
//     answered, none of them (one alone is answered after 100 ms).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

var (
	stubborn   = flag.Bool("stubborn", false, "ignore SIGTERM and the end of input")
	daemon     = flag.Bool("daemon", false, "leave an orphan daemon with an empty environment (PIDDIR)")
	hangShared = flag.Bool("hang-shared", false, "never answer a tools/call while another process is alive")
	slow       = flag.Bool("slow", false, "answer each tools/call 300 ms later")
	deadlock   = flag.Bool("deadlock", false, "never answer overlapping tools/calls")
	inFlight   atomic.Int32
)

func main() {
	flag.Parse()
	if *stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	if *daemon && spawn.Dir() != "" {
		// sh starts the daemon in the background and exits at once: the
		// daemon is orphaned before anyone could see it as a child.
		script := fmt.Sprintf(`setsid env -i /bin/sh -c 'read p rest < /proc/self/stat; echo $p > %q/orphan-$p.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &`, spawn.Dir())
		_ = exec.Command("/bin/sh", "-c", script).Run()
		time.Sleep(100 * time.Millisecond)
	}
	mine := filepath.Join(".", fmt.Sprintf("live-%d", procPID()))
	if *hangShared {
		_ = os.WriteFile(mine, nil, 0o644)
	}
	srv := &rawserver.Server{Name: "hostile-concurrency", Version: "1.0.0"}
	srv.Methods = rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
		"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
			p, err := rawserver.DecodeCall(req)
			if err != nil {
				return nil, err
			}
			if *hangShared && othersAlive() {
				return nil, rawserver.ErrAnswered // never answered
			}
			if *deadlock {
				inFlight.Add(1)
				go func() {
					time.Sleep(100 * time.Millisecond)
					if inFlight.Load() > 1 {
						select {} // never answered
					}
					inFlight.Add(-1)
					_ = srv.Respond(req.ID, rawserver.PoliteAnswer(p), nil)
				}()
				return nil, rawserver.ErrAnswered
			}
			if *slow {
				time.Sleep(300 * time.Millisecond)
			}
			return rawserver.PoliteAnswer(p), nil
		},
	})
	rawserver.Main(srv)
	if *hangShared {
		_ = os.Remove(mine)
	}
	if *stubborn {
		time.Sleep(spawn.Lifetime)
	}
}

// othersAlive reports whether another process of the fixture left its
// live-PID file in the working directory and is still running.
func othersAlive() bool {
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "live-"))
		if !strings.HasPrefix(e.Name(), "live-") || err != nil || pid == procPID() {
			continue
		}
		// By /proc, not kill(pid, 0): each server may run in a PID
		// namespace of its own (mcp-fuzz's box), where the other's pid
		// means nothing and signals do not cross.
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && len(st) > i+2 && st[i+2] != 'Z' {
				return true
			}
		}
	}
	return false
}

// procPID is this process's pid as /proc numbers it: the same for every
// server of the fixture, boxed in PID namespaces of their own or not.
func procPID() int {
	if self, err := os.Readlink("/proc/self"); err == nil {
		if n, err := strconv.Atoi(self); err == nil {
			return n
		}
	}
	return os.Getpid()
}
