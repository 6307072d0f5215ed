package box

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// launchVar, set to "1" in the launcher's environment, makes this package's
// init function run the launcher instead of the program.
const launchVar = "MCP_FUZZ_BOX_LAUNCH"

// The launcher's descriptors: its orders on configFD (read to the end),
// and what became of the server on statusFD (written once, at the end).
const (
	configFD = 3
	statusFD = 4
)

// maxPayload bounds the orders the launcher reads.
const maxPayload = 64 << 20

// payload is what the launcher is told to do.
type payload struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`

	SetUID   bool   `json:"setUID,omitempty"`
	UID      uint32 `json:"uid,omitempty"`
	GID      uint32 `json:"gid,omitempty"`
	DropCaps bool   `json:"dropCaps,omitempty"`
	Landlock bool   `json:"landlock,omitempty"`
	// Probe: apply the restrictions, report them, start nothing.
	Probe bool `json:"probe,omitempty"`
}

func init() {
	if os.Getenv(launchVar) != "1" {
		return
	}
	os.Exit(launch())
}

// launch is the launcher: it applies the box to one OS thread, starts the
// server from that thread (a child inherits the thread's credentials and
// Landlock domain), waits for it (reaping every orphan when it is the init
// of a PID namespace), reports how it ended, and exits with its status.
func launch() int {
	// Everything below must happen on one thread: no_new_privs, the
	// capability sets and the Landlock domain are per thread.
	runtime.LockOSThread()
	status := os.NewFile(statusFD, "box-status")
	unix.CloseOnExec(statusFD)
	fail := func(code int, format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(os.Stderr, "mcp-fuzz box: %s\n", msg)
		fmt.Fprintf(status, "error: %s\n", msg)
		return code
	}
	orders := os.NewFile(configFD, "box-config")
	data, err := io.ReadAll(io.LimitReader(orders, maxPayload+1))
	orders.Close()
	if err != nil || len(data) > maxPayload {
		return fail(126, "reading the launcher's orders: %v", err)
	}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return fail(126, "reading the launcher's orders: %v", err)
	}
	// Signals sent to the server's process group reach the launcher too:
	// it outlives the server to report how it ended. (Caught, not
	// ignored: an ignored signal would stay ignored in the server.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)

	applied, err := restrict(p)
	if err != nil {
		return fail(126, "%v", err)
	}
	if p.Probe {
		fmt.Fprintf(status, "ok %s\n", strings.Join(applied, " "))
		return 0
	}
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if p.SetUID {
		attr.Credential = &syscall.Credential{Uid: p.UID, Gid: p.GID, Groups: []uint32{}}
	}
	cmd := &exec.Cmd{Path: p.Path, Args: p.Argv, Env: p.Env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, SysProcAttr: attr}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	if err := cmd.Start(); err != nil {
		code := 126
		if errors.Is(err, os.ErrNotExist) {
			code = 127
		}
		who := ""
		if p.SetUID {
			who = fmt.Sprintf(" as uid %d", p.UID)
		}
		return fail(code, "cannot start %s%s: %v", p.Path, who, unwrapPath(err))
	}
	server := cmd.Process.Pid
	// The server's stdio is its own: a server that closes its stdout must
	// be seen to, and nothing the launcher keeps may hold it open.
	os.Stdin.Close()
	os.Stdout.Close()
	os.Stderr.Close()
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail(126, "waiting for the server: %v", err)
		}
		if pid != server {
			continue // an orphan of the server, adopted by the init of its PID namespace
		}
		switch {
		case ws.Signaled():
			fmt.Fprintf(status, "signal %s\n", unix.SignalName(ws.Signal()))
			return 128 + int(ws.Signal())
		case ws.Exited():
			fmt.Fprintf(status, "exit code %d\n", ws.ExitStatus())
			return ws.ExitStatus()
		}
	}
}

// unwrapPath drops the *exec.Error and *fs.PathError wrappers that repeat
// the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// restrict applies p's restrictions to the calling thread and says which
// took effect: "nnp", "nocaps", "landlock=ABI", "scope-signal".
func restrict(p payload) ([]string, error) {
	var applied []string
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("setting no_new_privs: %w", err)
	}
	applied = append(applied, "nnp")
	if p.DropCaps {
		if err := dropCapabilities(); err != nil {
			return nil, fmt.Errorf("dropping capabilities: %w", err)
		}
		applied = append(applied, "nocaps")
	}
	if p.Landlock {
		abi, scoped, err := enterLandlock()
		if err != nil {
			return nil, fmt.Errorf("entering a Landlock domain: %w", err)
		}
		if abi > 0 {
			applied = append(applied, fmt.Sprintf("landlock=%d", abi))
		}
		if scoped {
			applied = append(applied, "scope-signal")
		}
	}
	return applied, nil
}

// enterLandlock makes the calling thread enter a new Landlock domain: a
// process in it can no longer ptrace (nor read /proc/PID/environ or mem of)
// a process outside it, and, from ABI 6, cannot signal one. The domain
// handles the creation of device nodes, which it then forbids everywhere,
// because a domain must handle some access; servers make no device nodes.
func enterLandlock() (abi int, scoped bool, err error) {
	abi, err = llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return 0, false, nil
	}
	cfg := landlock.MustConfig(
		landlock.AccessFSSet(llsys.AccessFSMakeChar|llsys.AccessFSMakeBlock),
		landlock.ScopedSet(llsys.ScopeSignal),
	).BestEffort()
	fd, flags, err := cfg.NewRulesetFD()
	if err != nil {
		return 0, false, err
	}
	if fd < 0 {
		return 0, false, nil
	}
	defer unix.Close(fd)
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, false, err
	}
	return abi, abi >= 6, nil
}

// Securebits (<linux/securebits.h>) that keep uid 0 from regaining
// capabilities through exec or setuid.
const (
	secbitNoroot                 = 1 << 0
	secbitNorootLocked           = 1 << 1
	secbitNoSetuidFixup          = 1 << 2
	secbitNoSetuidFixupLocked    = 1 << 3
	secbitKeepCapsLocked         = 1 << 5
	secbitNoCapAmbientRaise      = 1 << 6
	secbitNoCapAmbientRaiseLockd = 1 << 7
)

// dropCapabilities leaves the calling thread, and what it starts, with no
// capability: the bounding and ambient sets emptied, the effective,
// permitted and inheritable sets cleared, and securebits locked so that an
// exec as uid 0 grants none back.
func dropCapabilities() error {
	bits := secbitNoroot | secbitNorootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLockd
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the last capability
			}
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
