package box

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nobody is the uid and gid of nobody.
const nobody = 65534

// boxAccount returns the uid and gid of [BoxUser], or nobody's.
func boxAccount() (uid, gid int, who string) {
	u, err := user.Lookup(BoxUser)
	if err != nil {
		return nobody, nobody, "nobody"
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil || uid == 0 {
		return nobody, nobody, "nobody"
	}
	return uid, gid, BoxUser
}

// probeWait bounds the probe launcher.
const probeWait = 10 * time.Second

var dumpableOnce sync.Once

// New chooses the box for a run whose servers need what o says, and tries
// it once (a probe launcher that applies it and starts nothing), so that a
// mechanism the machine refuses is left out before the first server starts.
func New(o Options) *Plan {
	p := &Plan{}
	if o.Off {
		p.warning = OffWarning
		p.note("off (--no-box)")
		p.add("none (--no-box): the server runs as uid %d beside mcp-fuzz", os.Geteuid())
		p.add("%s", groupLine)
		return p
	}
	self, err := selfExe()
	if err != nil {
		return p.unavailable(fmt.Sprintf("this program's executable cannot be opened (%v)", err))
	}
	p.launcher = self
	// Nothing of mcp-fuzz's own can be read through /proc by a process
	// without CAP_SYS_PTRACE, whatever its uid.
	dumpableOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) })

	root := os.Geteuid() == 0
	if root {
		p.chooseUser(o)
	}
	p.landlock = true
	p.pidNS = true
	p.userNS = !root

	applied, err := p.probe()
	if err != nil && p.pidNS {
		// No namespace for us here (a container without CAP_SYS_ADMIN,
		// unprivileged user namespaces turned off): try without.
		why := namespaceRefused(err, p.userNS)
		p.pidNS, p.userNS = false, false
		applied, err = p.probe()
		if err == nil {
			p.describe(applied, "unavailable ("+why+")")
			return p
		}
	}
	if err != nil {
		p.launcher = ""
		p.Close()
		return p.unavailable(brief(err))
	}
	p.describe(applied, "")
	return p
}

// rootWarning is the warning of a run whose server stays uid 0.
const rootWarning = "the server runs as uid 0 (without capabilities), since no other user can use its files: it can still read files only root may read, take permissions away from root's files, and reach sockets only root may use; run mcp-fuzz as a user other than root, or put the server's files where other users can read them and give it a working directory owned by one (see docs/SANDBOX.md)"

// unavailable is the plan of a machine where no launcher can run.
func (p *Plan) unavailable(why string) *Plan {
	p.launcher = ""
	p.lines, p.short = nil, nil
	p.warning = "the box is unavailable here (" + why + "): the server runs as mcp-fuzz's own user beside it"
	p.note("unavailable")
	p.add("none: the box is unavailable (%s)", why)
	p.add("%s", groupLine)
	return p
}

// chooseUser picks the uid of a server started by root, the first that can
// reach every file the server is given: the owner of the working directory
// when that is not root (the workspace's user in a CI container, who can
// write there), then nobody; else the server stays uid 0 with no
// capability.
func (p *Plan) chooseUser(o Options) {
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	type candidate struct {
		uid, gid int
		who      string
	}
	var candidates []candidate
	var st unix.Stat_t
	if dir != "" && unix.Stat(dir, &st) == nil && st.Uid != 0 {
		candidates = append(candidates, candidate{int(st.Uid), int(st.Gid), "the owner of the working directory"})
	}
	if uid, gid, who := boxAccount(); len(candidates) == 0 || candidates[0].uid != uid {
		candidates = append(candidates, candidate{uid, gid, who})
	}
	var why []string
	for _, c := range candidates {
		if blocked := unreachable(c.uid, c.gid, o, dir); blocked != "" {
			why = append(why, fmt.Sprintf("uid %d %s", c.uid, blocked))
			continue
		}
		p.setUID, p.uid, p.gid = true, c.uid, c.gid
		p.note(fmt.Sprintf("uid %d (%s)", c.uid, c.who))
		p.add("uid %d, gid %d (%s), no capability", c.uid, c.gid, c.who)
		p.privateHome(o)
		return
	}
	p.dropCaps = true
	// The terminal shows why, in a few words: the last account's reason
	// (the one a root-owned working directory leaves).
	p.note("uid 0 without capabilities (" + why[len(why)-1] + ")")
	p.add("uid 0 with no capability (%s)", strings.Join(why, "; "))
	// uid 0 may still write every file root owns: Landlock confines its
	// writes to what it was given, and its home is a private one.
	p.uid, p.gid = 0, 0
	p.privateHome(o)
	p.writable = writablePaths(o, dir, p.home)
}

// privateHome gives the server's uid a home of its own when it cannot
// write the one in its environment (a package runner keeps its cache
// there), or, for uid 0, always (root's own home is root's), unless the
// user set HOME.
func (p *Plan) privateHome(o Options) {
	if o.UserHome {
		return
	}
	home := ""
	for _, kv := range o.Env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if home != "" && p.uid != 0 && writable(p.uid, p.gid, home) {
		return
	}
	dir, err := os.MkdirTemp("", "mcp-fuzz-home-")
	if err != nil {
		return
	}
	if err := os.Chown(dir, p.uid, p.gid); err != nil {
		os.Remove(dir)
		return
	}
	p.home = dir
	p.cleanup = func() { os.RemoveAll(dir) }
	why := "none was set"
	switch {
	case p.uid == 0 && home != "":
		why = "the server may not write " + home
	case home != "":
		why = "it cannot write " + home
	}
	p.add("HOME is a private directory for the server's uid (%s)", why)
}

// describe adds the lines of what the probe applied.
func (p *Plan) describe(applied []string, nsMissing string) {
	has := map[string]string{}
	for _, a := range applied {
		k, v, _ := strings.Cut(a, "=")
		has[k] = v
	}
	if !p.setUID && !p.dropCaps {
		p.note(fmt.Sprintf("uid %d (mcp-fuzz's)", os.Geteuid()))
		p.add("uid %d, the same as mcp-fuzz's (it is not root)", os.Geteuid())
	}
	_, scoped := has["scope-signal"]
	switch abi := has["landlock"]; {
	case abi == "":
		p.note("no Landlock")
		p.add("landlock: unavailable on this kernel; mcp-fuzz's memory and environment are kept by its uid and non-dumpable state only")
	case scoped:
		p.note("Landlock " + abi)
		p.add("landlock ABI %s: no ptrace (/proc/PID/environ, mem) and no signal to any process outside the box", abi)
	default:
		p.note("Landlock " + abi + " (signals not scoped)")
		p.add("landlock ABI %s: no ptrace (/proc/PID/environ, mem) outside the box; signals are not scoped before ABI 6", abi)
	}
	if _, writes := has["writes"]; writes {
		p.note("writes confined")
		p.add("landlock: the server writes only in its working directory, its home, the temporary directories, the directories its arguments name and the paths its environment names (uid 0 could otherwise write every file root owns)")
	} else if p.dropCaps {
		p.note("writes not confined")
		p.add("landlock: writes are not confined here, so the server (uid 0) can write every file root owns")
	}
	if _, modes := has["modes"]; modes {
		p.add("seccomp: the server (uid 0) cannot set setuid, setgid or world-writable modes")
	} else if p.dropCaps {
		p.add("seccomp: no mode filter on this architecture, so the server (uid 0) can make root's files setuid or writable by everybody")
	}
	if p.dropCaps {
		// What uid 0 keeps without any capability: say it where a gate's
		// reader looks, as a warning, not only in the list.
		p.warning = rootWarning
	}
	switch {
	case p.pidNS:
		p.note("PID namespace")
	case os.Getpid() == 1:
		p.note("in mcp-fuzz's PID namespace")
	default:
		p.note("no PID namespace")
	}
	switch {
	case p.pidNS && p.userNS:
		p.add("pid and user namespaces: the server cannot signal mcp-fuzz by its pid, and all its processes die with mcp-fuzz (it still sees other processes in /proc)")
	case p.pidNS:
		p.add("pid namespace: the server cannot signal mcp-fuzz by its pid, and all its processes die with mcp-fuzz (it still sees other processes in /proc)")
	case os.Getpid() == 1:
		p.add("pid namespace: %s; mcp-fuzz is the init of its own, so all the server's processes die with it", nsMissing)
	default:
		p.add("pid namespace: %s; if mcp-fuzz is killed only the server's first process dies with it", nsMissing)
	}
	p.add("no_new_privs, a death signal, mcp-fuzz not dumpable")
	p.add("%s", groupLine)
}

// namespaceRefused says why the kernel refused the launcher its namespaces.
func namespaceRefused(err error, userNS bool) string {
	switch {
	case errors.Is(err, unix.EPERM) && userNS:
		return "creating user and PID namespaces was refused: unprivileged user namespaces are off here"
	case errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) && !userNS:
		return "creating a PID namespace was refused: no CAP_SYS_ADMIN here (a container's default)"
	case errors.Is(err, unix.ENOSPC):
		return "the limit of namespaces is reached"
	case errors.Is(err, unix.EINVAL):
		return "this kernel has no PID namespaces"
	}
	return brief(err)
}

// brief is err's text on one line, cut.
func brief(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// probe starts the launcher as p would, in probe mode, and returns what it
// applied.
func (p *Plan) probe() ([]string, error) {
	cmd := &exec.Cmd{Path: "/bin/true", Args: []string{"true"}}
	l, err := p.Wrap(cmd)
	if err != nil {
		return nil, err
	}
	l.probe = true
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := l.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(probeWait):
		_ = cmd.Process.Kill()
		err = <-done
		if err == nil {
			err = errors.New("the probe did not finish")
		}
	}
	st, _ := l.Status(time.Second)
	if rest, ok := strings.CutPrefix(st, "ok"); ok && err == nil {
		return strings.Fields(rest), nil
	}
	if msg, ok := strings.CutPrefix(st, "error: "); ok {
		return nil, errors.New(msg)
	}
	if err == nil {
		err = fmt.Errorf("the probe said %q", st)
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		err = fmt.Errorf("%w: %s", err, s)
	}
	return nil, err
}

// A Launch is one process started through the launcher.
type Launch struct {
	plan    *Plan
	cmd     *exec.Cmd
	server  payload
	probe   bool
	orders  *os.File // our end of the launcher's orders
	status  *os.File // our end of its status
	theirs  []*os.File
	statusC chan string
}

// Wrap rewrites cmd, which would start the server, to start the launcher,
// which starts the server in the box. Start it with [Launch.Start], not
// cmd.Start.
func (p *Plan) Wrap(cmd *exec.Cmd) (*Launch, error) {
	if !p.Active() {
		return nil, errors.New("the box is off")
	}
	l := &Launch{plan: p, cmd: cmd, statusC: make(chan string, 1)}
	l.server = payload{Path: cmd.Path, Argv: cmd.Args, Env: cmd.Env, Parent: procSelf(), SetUID: p.setUID, UID: uint32(p.uid), GID: uint32(p.gid),
		DropCaps: p.dropCaps, Landlock: p.landlock, Writable: p.writable}
	or, ow, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the launcher's pipe: %w", err)
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		or.Close()
		ow.Close()
		return nil, fmt.Errorf("creating the launcher's pipe: %w", err)
	}
	l.orders, l.status, l.theirs = ow, sr, []*os.File{or, sw}
	env := make([]string, 0, len(cmd.Env)+1)
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, launchVar+"=") {
			env = append(env, kv)
		}
	}
	l.server.Env = env
	cmd.Path = p.launcher
	cmd.Args = []string{"mcp-fuzz-box"}
	cmd.Env = append(append([]string{}, env...), launchVar+"=1")
	cmd.ExtraFiles = []*os.File{or, sw} // descriptors 3 and 4
	attr := cmd.SysProcAttr
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	if p.pidNS {
		attr.Cloneflags |= syscall.CLONE_NEWPID
		if p.userNS {
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			uid, gid := os.Geteuid(), os.Getegid()
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			attr.GidMappingsEnableSetgroups = false
		}
	}
	cmd.SysProcAttr = attr
	return l, nil
}

// dumpableMu serialises the starts that must make mcp-fuzz dumpable for a
// moment (see [Launch.Start]).
var dumpableMu sync.Mutex

// Start starts the wrapped command, the launcher, and hands it its orders.
// A launcher in a user namespace of its own needs its uid and gid maps
// written by mcp-fuzz between its birth and its exec, which the kernel
// allows only while mcp-fuzz is dumpable (the child is a copy of it until
// it execs): for those moments mcp-fuzz is dumpable again. Landlock keeps
// the servers already running from its memory meanwhile, where the kernel
// has it.
func (l *Launch) Start() error {
	if l.plan.userNS && l.plan.pidNS {
		dumpableMu.Lock()
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
		err := l.cmd.Start()
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		dumpableMu.Unlock()
		if err != nil {
			l.Abort()
			return err
		}
	} else if err := l.cmd.Start(); err != nil {
		l.Abort()
		return err
	}
	l.started()
	return nil
}

// started hands the launcher its orders and starts reading its status.
func (l *Launch) started() {
	for _, f := range l.theirs {
		f.Close()
	}
	pl := l.server
	pl.Probe = l.probe
	data, _ := json.Marshal(pl)
	go func() {
		_, _ = l.orders.Write(data) // EPIPE when the launcher died first
		l.orders.Close()
	}()
	go func() {
		line, _ := bufio.NewReader(io.LimitReader(l.status, 4096)).ReadString('\n')
		l.status.Close()
		l.statusC <- strings.TrimSpace(line)
	}()
}

// Abort releases what Wrap made when cmd.Start failed.
func (l *Launch) Abort() {
	for _, f := range append(l.theirs, l.orders, l.status) {
		f.Close()
	}
}

// Status returns what the launcher said at its end: "exit code N" or
// "signal SIGNAME" for the server, "error: …" when it could not start
// it; "" when it said nothing within wait (it was killed).
func (l *Launch) Status(wait time.Duration) (string, bool) {
	select {
	case s := <-l.statusC:
		l.statusC <- s
		return s, s != ""
	case <-time.After(wait):
		return "", false
	}
}

// procSelf is this process's pid as /proc numbers it.
func procSelf() int {
	if self, err := os.Readlink("/proc/self"); err == nil {
		if n, err := strconv.Atoi(self); err == nil {
			return n
		}
	}
	return os.Getpid()
}

var (
	exeOnce sync.Once
	exePath string
	exeErr  error
)

// selfExe returns a path that executes this very program for as long as
// it runs: a descriptor of its executable opened once, named through
// /proc/self/fd. Not the program's path, which a server allowed to write
// there could replace with one of its own, started outside the box.
func selfExe() (string, error) {
	exeOnce.Do(func() {
		fd, err := unix.Open("/proc/self/exe", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			exeErr = err
			return
		}
		// Above the descriptors a start hands the child (0-2, then 3 and 4
		// for the launcher), which exec.Cmd moves into place first.
		high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 64)
		unix.Close(fd)
		if err != nil {
			exeErr = err
			return
		}
		exePath = fmt.Sprintf("/proc/self/fd/%d", high)
	})
	return exePath, exeErr
}
