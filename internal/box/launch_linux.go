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
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// launchVar makes this package's init function run the launcher instead
// of the program: "1" for its first stage, "2" for its second.
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

	// Parent is mcp-fuzz's pid as /proc numbers it: the first stage dies
	// when its parent is another (mcp-fuzz died before the death signal
	// was set again).
	Parent   int    `json:"parent"`
	SetUID   bool   `json:"setUID,omitempty"`
	UID      uint32 `json:"uid,omitempty"`
	GID      uint32 `json:"gid,omitempty"`
	DropCaps bool   `json:"dropCaps,omitempty"`
	Landlock bool   `json:"landlock,omitempty"`
	// Writable confines the server's writes (Landlock) to these files and
	// directories (beneath), when not empty: the mode where it stays uid 0
	// and could otherwise write root's files.
	Writable []string `json:"writable,omitempty"`
	// Probe: apply the restrictions, report them, start nothing.
	Probe bool `json:"probe,omitempty"`
}

func init() {
	switch os.Getenv(launchVar) {
	case "1":
		os.Exit(launch())
	case "2":
		os.Exit(supervise())
	}
}

// fail reports a launcher's failure on stderr and on the status pipe.
func fail(code int, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stderr, "mcp-fuzz box: %s\n", msg)
	fmt.Fprintf(os.NewFile(statusFD, "box-status"), "error: %s\n", msg)
	return code
}

// readOrders reads the payload on configFD and closes it.
func readOrders() (payload, error) {
	var p payload
	orders := os.NewFile(configFD, "box-config")
	data, err := io.ReadAll(io.LimitReader(orders, maxPayload+1))
	orders.Close()
	if err == nil && len(data) > maxPayload {
		err = errors.New("too large")
	}
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	return p, err
}

// launch is the launcher's first stage. It makes itself non-dumpable,
// restricts its one thread (no_new_privs; the uid, or no capability;
// the Landlock domain) and executes the program again from that thread:
// the second stage starts with those credentials on its only thread, so
// every thread it has is restricted, and nothing is left in the box with
// more privileges than the server.
func launch() int {
	runtime.LockOSThread()
	// Nothing in the box may read or write this process's memory.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	p, err := readOrders() // the status descriptor stays open for the second stage
	if err != nil {
		return fail(126, "reading the launcher's orders: %v", err)
	}
	applied, err := restrict(p)
	if err != nil {
		return fail(126, "%v", err)
	}
	// A change of uid cleared the death signal: set it again, and make
	// sure mcp-fuzz did not die meanwhile.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fail(126, "setting the death signal: %v", err)
	}
	if p.Parent > 0 && procParent() != p.Parent {
		return fail(126, "mcp-fuzz is gone")
	}
	if p.Probe {
		fmt.Fprintf(os.NewFile(statusFD, "box-status"), "ok %s\n", strings.Join(applied, " "))
		return 0
	}
	data, err := json.Marshal(p)
	if err != nil {
		return fail(126, "%v", err)
	}
	fd, err := unix.MemfdCreate("mcp-fuzz-box", 0)
	if err == nil {
		_, err = unix.Write(fd, data)
	}
	if err == nil {
		_, err = unix.Seek(fd, 0, io.SeekStart)
	}
	if err == nil && fd != configFD {
		err = unix.Dup2(fd, configFD)
		unix.Close(fd)
	}
	if err != nil {
		return fail(126, "handing the orders on: %v", err)
	}
	env := make([]string, 0, len(p.Env)+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launchVar+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, launchVar+"=2")
	// /proc/self/exe is this very program, whatever its path names now.
	err = syscall.Exec("/proc/self/exe", []string{"mcp-fuzz-box"}, env)
	return fail(126, "starting the launcher's second stage: %v", err)
}

// procParent returns this process's parent as /proc numbers it (getppid
// says 0 in a new PID namespace).
func procParent() int {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// supervise is the launcher's second stage, restricted on every thread:
// it starts the server, waits for it (reaping every orphan when it is the
// init of a PID namespace), reports how it ended, and exits with its
// status.
func supervise() int {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) // exec made it dumpable again
	unix.CloseOnExec(statusFD)
	p, err := readOrders()
	if err != nil {
		return fail(126, "reading the launcher's orders: %v", err)
	}
	// Signals sent to the server's process group reach the launcher too:
	// it outlives the server to report how it ended. (Caught, not
	// ignored: an ignored signal would stay ignored in the server.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	cmd := &exec.Cmd{Path: p.Path, Args: p.Argv, Env: p.Env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
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
	status := os.NewFile(statusFD, "box-status")
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			fmt.Fprintf(status, "error: waiting for the server: %v\n", err)
			return 126
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
	if p.SetUID {
		// For every thread (the Go runtime's calls are process-wide), and
		// before the exec that follows: the second stage has no other uid.
		if err := syscall.Setgroups([]int{}); err != nil {
			return nil, fmt.Errorf("dropping supplementary groups: %w", err)
		}
		if err := syscall.Setresgid(int(p.GID), int(p.GID), int(p.GID)); err != nil {
			return nil, fmt.Errorf("setting gid %d: %w", p.GID, err)
		}
		if err := syscall.Setresuid(int(p.UID), int(p.UID), int(p.UID)); err != nil {
			return nil, fmt.Errorf("setting uid %d: %w", p.UID, err)
		}
		applied = append(applied, "uid")
	}
	if p.DropCaps {
		if err := dropCapabilities(); err != nil {
			return nil, fmt.Errorf("dropping capabilities: %w", err)
		}
		applied = append(applied, "nocaps")
		// What an owner may still do and Landlock does not see: setuid,
		// setgid and world-writable modes.
		modes, err := refuseModes()
		if err != nil {
			return nil, fmt.Errorf("installing the mode filter: %w", err)
		}
		if modes {
			applied = append(applied, "modes")
		}
	}
	if p.Landlock {
		abi, scoped, writes, err := enterLandlock(p.Writable)
		if err != nil {
			return nil, fmt.Errorf("entering a Landlock domain: %w", err)
		}
		if abi > 0 {
			applied = append(applied, fmt.Sprintf("landlock=%d", abi))
		}
		if scoped {
			applied = append(applied, "scope-signal")
		}
		if writes {
			applied = append(applied, "writes")
		}
	}
	return applied, nil
}

// The write rights a Landlock domain handles when the server's writes are
// confined ([payload.Writable]); reads, execution and device ioctls stay
// free.
const (
	writeRights = llsys.AccessFSWriteFile | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile |
		llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo |
		llsys.AccessFSMakeSym | llsys.AccessFSTruncate
	deviceRights = llsys.AccessFSMakeChar | llsys.AccessFSMakeBlock
)

// enterLandlock makes the calling thread enter a new Landlock domain: a
// process in it can no longer ptrace (nor read /proc/PID/environ or mem of)
// a process outside it, and, from ABI 6, cannot signal one. Before ABI 6 a
// domain must handle some file access: it handles the creation of device
// nodes, which servers never make. With writable it handles every write
// and grants it beneath those paths only. Renaming across directories is
// allowed wherever writing is: Landlock forbids it in any domain that
// handles file access unless a rule grants it, and ABI 1 cannot grant it,
// so a kernel with ABI 1 gets no domain (renames would fail).
func enterLandlock(writable []string) (abi int, scoped, writes bool, err error) {
	abi, err = llsys.LandlockGetABIVersion()
	if err != nil || abi < 2 {
		return 0, false, false, nil
	}
	var cfg landlock.Config
	var rules []landlock.Rule
	switch {
	case len(writable) > 0:
		cfg = landlock.Config{HandledAccessFS: writeRights | deviceRights | llsys.AccessFSRefer, Scoped: llsys.ScopeSignal | llsys.ScopeAbstractUnixSocket}
		var dirs, files []string
		for _, w := range writable {
			if st, err := os.Stat(w); err == nil && st.IsDir() {
				dirs = append(dirs, w)
			} else if err == nil {
				files = append(files, w)
			}
		}
		if len(dirs) > 0 {
			rules = append(rules, landlock.PathAccess(writeRights, dirs...).WithRefer())
		}
		if len(files) > 0 {
			rules = append(rules, landlock.PathAccess(llsys.AccessFSWriteFile|llsys.AccessFSTruncate, files...))
		}
		writes = true
	case abi >= 6:
		cfg = landlock.Config{Scoped: llsys.ScopeSignal | llsys.ScopeAbstractUnixSocket}
	default:
		cfg = landlock.Config{HandledAccessFS: deviceRights | llsys.AccessFSRefer}
		rules = append(rules, landlock.PathAccess(0, "/").WithRefer())
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return 0, false, false, err
	}
	if fd < 0 {
		return 0, false, false, nil
	}
	defer unix.Close(fd)
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, false, false, err
	}
	return abi, abi >= 6, writes, nil
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
