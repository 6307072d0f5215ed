package stdio

import (
	"bytes"
	"crypto/rand"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// On Linux a server's processes are found by reading /proc, so that the ones that
// left its process group are found too:
//
//   - mcp-fuzz is a child subreaper (PR_SET_CHILD_SUBREAPER): an orphaned
//     descendant is reparented to it instead of to init, so it is not lost, and its
//     zombie is ours to reap;
//   - every server gets a marker variable in its environment, which its
//     descendants inherit wherever they go;
//   - the members are the leader, the processes in the leader's group, those
//     started after the leader with the marker, those found by the sweep before,
//     and every descendant of a member; and, when no other server is running,
//     every orphan reparented to mcp-fuzz that is in a session of its own (a
//     daemon that emptied its environment too), or, after [OwnChildren], every
//     child of mcp-fuzz.
//
// Signals go to each member, to the leader's group while it exists, and to every
// other group that has only members in it: a signal to a group also reaches a
// child being forked at that moment.

// markerName is the variable that tags a server's processes.
const markerName = "MCP_FUZZ_SERVER_ID"

// prctlSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prctlSetChildSubreaper = 36

// reapInterval spaces the reaper's scans of /proc when orphans keep exiting.
const reapInterval = 50 * time.Millisecond

var setupOnce sync.Once

// beforeStart prepares mcp-fuzz to start a server: once, it becomes a child
// subreaper and starts reaping adopted orphans; every time, it marks every
// descriptor above stderr close-on-exec, so that descriptors it inherited from its
// own parent do not reach the server.
func beforeStart() {
	setupOnce.Do(func() {
		// Fails only on kernels older than 3.4; then orphans go to init as before.
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prctlSetChildSubreaper, 1, 0)
		go reapAdopted()
	})
	closeOnExec("/proc/self/fd")
}

// serverEnv returns env with the marker of a new server added (any marker already
// in env replaced), and the marker.
func serverEnv(env []string) ([]string, string) {
	marker := markerName + "=" + rand.Text()
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, markerName+"=") {
			out = append(out, kv)
		}
	}
	return append(out, marker), marker
}

func sysProcAttr() *syscall.SysProcAttr {
	// Pdeathsig kills the server if mcp-fuzz dies without stopping it (it fires
	// when the thread that started the child exits; the Go runtime keeps its
	// threads).
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// A tracker finds the processes of one server.
type tracker struct {
	leader      *os.Process
	leaderPID   int
	leaderStart uint64          // start time of the leader, in clock ticks after boot
	reaped      <-chan struct{} // closed once exec.Cmd has reaped the leader
	marker      string
	fallback    *groupTracker // when /proc cannot be read

	mu        sync.Mutex     // guards the fields below, which the reaper reads
	known     map[int]uint64 // members found by the last sweep: pid → start time
	groupGone bool           // the leader's group is empty for good
	live      []int          // live members found by the last sweep
	groups    []int          // other process groups of only members, by the last sweep
}

func newTracker(leader *os.Process, marker string, reaped <-chan struct{}) *tracker {
	t := &tracker{
		leader:    leader,
		leaderPID: leader.Pid,
		reaped:    reaped,
		marker:    marker,
		known:     map[int]uint64{},
	}
	// The leader cannot have been reaped yet: nothing waits for it so far.
	s, ok := readStat(strconv.Itoa(leader.Pid))
	if !ok {
		t.fallback = &groupTracker{pgid: leader.Pid, leader: leader, reaped: reaped}
		return t
	}
	t.leaderStart = s.start
	return t
}

// sweep looks for the server's processes and reaps those that are zombies and
// ours. It returns how many are alive, and how many had died since the last sweep
// (zombies, the leader's included). alone says whether this is the only server
// running.
func (t *tracker) sweep(alone bool) (live, dead int) {
	if t.fallback != nil {
		return t.fallback.sweep(alone)
	}
	reaped := isClosed(t.reaped) // before the scan: see members
	list, err := scanProcs()
	if err != nil {
		t.mu.Lock()
		t.live, t.groups = nil, nil
		t.mu.Unlock()
		g := groupTracker{pgid: t.leaderPID, leader: t.leader, reaped: t.reaped}
		return g.sweep(alone)
	}
	members := t.members(list, reaped, alone)
	self := os.Getpid()
	var pids []int
	for _, s := range members {
		if s.state != 'Z' && s.state != 'X' {
			pids = append(pids, s.pid)
			continue
		}
		dead++
		if s.ppid == self && s.pid != t.leaderPID { // the leader is exec.Cmd's to reap
			reap(s.pid)
		}
	}
	t.mu.Lock()
	t.live = pids
	t.mu.Unlock()
	return len(pids), dead
}

// members returns the server's processes in list, zombies included, and
// remembers them for the next sweep. reaped says whether the leader had been
// reaped before list was read.
func (t *tracker) members(list []procStat, reaped, alone bool) []procStat {
	self := os.Getpid()
	selfSid := -1
	groupSeen := false
	for _, s := range list {
		if s.pid == self {
			selfSid = s.sid
		}
		if s.pgrp == t.leaderPID {
			groupSeen = true
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if reaped && !groupSeen {
		// The group is empty and the leader's pid is free: a later process with
		// that pid or group is not ours.
		t.groupGone = true
	}
	in := map[int]bool{}
	children := map[int][]int{}
	for _, s := range list {
		if s.pid == self {
			continue
		}
		children[s.ppid] = append(children[s.ppid], s.pid)
		switch {
		// An orphan in a session of its own: with subreaping, only a
		// descendant of a server that left its session and lost its parent
		// looks like this (see the package documentation); with OwnChildren,
		// any child but the leader. It may be older than this server's
		// leader when several servers run.
		case alone && s.ppid == self && ((s.sid != selfSid && selfSid >= 0) || ownChildren.Load()):
		case s.start < t.leaderStart:
			continue // older than the leader: not one of its processes, but by descent
		case s.pid == t.leaderPID && s.start == t.leaderStart,
			!t.groupGone && s.pgrp == t.leaderPID,
			t.known[s.pid] == s.start,
			s.state != 'Z' && hasMarker(s.pid, t.marker):
		default:
			continue
		}
		in[s.pid] = true
	}
	queue := make([]int, 0, len(in))
	for pid := range in {
		queue = append(queue, pid)
	}
	for len(queue) > 0 { // and every descendant of a member
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range children[pid] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	var members []procStat
	known := make(map[int]uint64, len(in))
	mixed := map[int]bool{t.leaderPID: true} // the leader's group is signalled apart
	for _, s := range list {
		if !in[s.pid] {
			mixed[s.pgrp] = true // never signal a group with anyone else in it
			continue
		}
		members = append(members, s)
		known[s.pid] = s.start
	}
	var groups []int
	for _, s := range members {
		if !mixed[s.pgrp] && s.pgrp > 0 {
			mixed[s.pgrp] = true // once
			groups = append(groups, s.pgrp)
		}
	}
	t.known, t.groups = known, groups
	return members
}

// signal sends sig to the live members found by the last sweep and to their
// process groups: a group signal reaches a child forked at that very moment too.
func (t *tracker) signal(sig os.Signal) {
	if t.fallback != nil {
		t.fallback.signal(sig)
		return
	}
	s, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	t.mu.Lock()
	live, groups, groupGone := t.live, t.groups, t.groupGone
	t.mu.Unlock()
	if !groupGone {
		_ = syscall.Kill(-t.leaderPID, s) // ESRCH: nobody left in the group
	}
	for _, g := range groups {
		_ = syscall.Kill(-g, s)
	}
	if !isClosed(t.reaped) {
		_ = t.leader.Signal(sig) // by pidfd: never another process
	}
	for _, pid := range live {
		if pid != t.leaderPID {
			_ = syscall.Kill(pid, s)
		}
	}
}

// freeze stops the live members with SIGSTOP, so that none of them can fork while
// they are being killed, and sweeps again until no new member turns up: a child
// forked just before its parent stopped is found by the next sweep.
func (t *tracker) freeze(alone bool) {
	if t.fallback != nil {
		return
	}
	seen := map[int]bool{}
	for range 50 {
		t.mu.Lock()
		live := t.live
		t.mu.Unlock()
		fresh := false
		for _, pid := range live {
			if !seen[pid] {
				seen[pid] = true
				fresh = true
			}
		}
		if !fresh {
			return
		}
		t.signal(syscall.SIGSTOP)
		t.sweep(alone)
	}
}

// adoptedZombie reports whether s, a zombie child of mcp-fuzz, is known to be one
// of this server's processes.
func (t *tracker) adoptedZombie(s procStat) bool {
	if t.fallback != nil || s.pid == t.leaderPID || s.start < t.leaderStart {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return (!t.groupGone && s.pgrp == t.leaderPID) || t.known[s.pid] == s.start
}

// reapAdopted reaps, when children of mcp-fuzz exit, the zombies of orphans that
// running servers left to mcp-fuzz (it is their subreaper), so that they do not
// pile up during a long run: those known to belong to a server, and those in a
// session of their own. A child started by other code in this process is in
// mcp-fuzz's session, and left to that code. While a server is being stopped its
// sweeps reap instead, so that they see every death.
func reapAdopted() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	for range ch {
		time.Sleep(reapInterval) // signals meanwhile are merged into one
		trackers, stopping := activeTrackers()
		if len(trackers) == 0 || stopping {
			continue
		}
		list, err := scanProcs()
		if err != nil {
			continue
		}
		self := os.Getpid()
		selfSid := -1
		leaders := map[int]bool{}
		for _, t := range trackers {
			leaders[t.leaderPID] = true
		}
		for _, s := range list {
			if s.pid == self {
				selfSid = s.sid
			}
		}
		for _, s := range list {
			if s.state != 'Z' || s.ppid != self || leaders[s.pid] {
				continue
			}
			ours := selfSid >= 0 && s.sid != selfSid
			for _, t := range trackers {
				ours = ours || t.adoptedZombie(s)
			}
			if ours {
				reap(s.pid)
			}
		}
	}
}

// reap collects the exit status of pid, a zombie child of ours.
func reap(pid int) {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}

// hasMarker reports whether the environment of pid holds marker. A process can
// rewrite its environment; the other rules catch most of those.
func hasMarker(pid int, marker string) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for len(data) > 0 {
		var kv []byte
		kv, data, _ = bytes.Cut(data, []byte{0})
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// procStat is what sweeps need from /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp, sid int
	state                byte
	start                uint64 // clock ticks after boot
}

// scanProcs reads the stat of every process.
func scanProcs() ([]procStat, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	list := make([]procStat, 0, len(names))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		if s, ok := readStat(name); ok {
			list = append(list, s)
		} // else gone meanwhile
	}
	return list, nil
}

func readStat(pid string) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(data)
}

// parseStat parses a /proc/PID/stat line: "pid (comm) state ppid pgrp session
// ... starttime ...", where comm may contain anything.
func parseStat(data []byte) (procStat, bool) {
	i := bytes.LastIndexByte(data, ')')
	j := bytes.IndexByte(data, ' ')
	if i < 0 || j < 0 || j > i {
		return procStat{}, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var s procStat
	var err error
	s.state = f[0][0]
	ints := []*int{&s.pid, &s.ppid, &s.pgrp, &s.sid}
	for k, field := range [][]byte{data[:j], f[1], f[2], f[3]} {
		if *ints[k], err = strconv.Atoi(string(field)); err != nil {
			return procStat{}, false
		}
	}
	if s.start, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return procStat{}, false
	}
	return s, true
}

// activeTrackers returns the trackers of the servers not yet stopped, and whether
// one of them is being stopped.
func activeTrackers() (ts []*tracker, stopping bool) {
	active.Lock()
	defer active.Unlock()
	for p := range active.m {
		ts = append(ts, p.track)
		stopping = stopping || p.stopping.Load()
	}
	return ts, stopping
}

// sweepOrphans kills the orphans that servers left to mcp-fuzz in sessions
// of their own (with OwnChildren, every orphan), once no server runs: a stop
// takes those only when its server is alone, which servers stopped together
// never are. It gives up as soon as idle says a server runs or starts, or at
// deadline.
func sweepOrphans(idle func() bool, deadline time.Time) {
	reaped := make(chan struct{})
	close(reaped)
	// No leader: only the alone case of members matches, and descent.
	t := &tracker{leaderPID: -1, leaderStart: math.MaxUint64, reaped: reaped, groupGone: true, known: map[int]uint64{}}
	for idle() {
		live, dead := t.sweep(true)
		switch {
		case live == 0 && dead == 0:
			return
		case live > 0:
			t.freeze(true)
			if !idle() {
				return
			}
			t.signal(syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(pollInterval)
	}
}
