package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// Defaults for the zero values of [Config].
const (
	DefaultStderrLimit = 64 << 10
	DefaultKillGrace   = 2 * time.Second
	DefaultMaxLine     = rpc.DefaultMaxResponse
)

// Stop takes at most exitWait + Config.KillGrace + killWait + drainWait +
// readerWait, whatever the server and its descendants do, and killWait more
// for the last server running (its orphan sweep).
const (
	// exitWait is how long Stop waits, after closing stdin, for the server to exit by
	// itself before it signals its processes.
	exitWait = 200 * time.Millisecond
	// killWait bounds the SIGKILL sweeps and the wait for the leader to be reaped.
	killWait = 5 * time.Second
	// drainWait is how long Stop lets the output readers run once the server's
	// processes are gone, so that output written just before the end is still
	// delivered. A process that could not be killed may hold the pipes open; after
	// drainWait they are closed anyway.
	drainWait = 500 * time.Millisecond
	// readerWait is how long Stop waits for the readers once the pipes are closed.
	// Only a Config.OnViolation or Config.OnStderr that blocks makes it run out.
	readerWait = time.Second
	// launcherWait bounds the wait for a box launcher's report once it
	// has been reaped (it writes it just before it exits).
	launcherWait = time.Second
	// pollInterval is how often Stop looks for the server's processes.
	pollInterval = 20 * time.Millisecond
	// quietSweeps is how many sweeps in a row must find nothing before Stop
	// believes the server's processes are gone.
	quietSweeps = 2
	// quietGap separates the quiet sweeps. The second sweep only has to begin
	// after the first has ended (see empty); waiting a whole pollInterval
	// there cost every Stop of a server that exits on end of input 20 ms.
	quietGap = time.Millisecond
)

// ErrNotFound is returned by [Start] when the executable does not exist. It is
// wrapped with the name that was looked up.
var ErrNotFound = errors.New("executable not found")

// ErrClosed is returned by the connection's Read once the server's stdout has ended
// (the server exited or closed it) or the connection was closed, and by Write once
// the server's stdin is closed. It wraps [io.EOF].
var ErrClosed = fmt.Errorf("server connection closed: %w", io.EOF)

// Config says what to run and how to watch it.
type Config struct {
	// Path is the program to run. A name without a path separator is looked up in
	// the PATH of Env, or in the caller's PATH when Env has none. A relative path
	// with a separator is relative to Dir.
	Path string
	Args []string
	// Env is the environment of the server; nil means an empty one, never the
	// caller's. See [MinimalEnv]. On Linux one variable is added:
	// MCP_FUZZ_SERVER_ID, a random value by which the server's processes are
	// found when they are stopped.
	Env []string
	// Dir is the server's working directory; empty means the caller's.
	Dir string
	// StderrLimit is how many bytes of stderr are kept: the last ones. Default
	// [DefaultStderrLimit].
	StderrLimit int
	// KillGrace is the time between SIGTERM and SIGKILL. Default [DefaultKillGrace].
	KillGrace time.Duration
	// MaxLine is the longest stdout line held, without its line terminator: the
	// response cap. A longer line is read to its end in constant memory; if it
	// is an answer with an id, the connection delivers a response for that id
	// whose Error is an [*rpc.Oversize], else it is skipped and reported as a
	// "line_too_long" violation. Default [DefaultMaxLine].
	MaxLine int
	// OnViolation, if set, is called from the stdout reader goroutine for every
	// stdout line that is not a JSON-RPC message. It must not block for long: the
	// reader waits for it. If it blocks past the end of [Process.Stop], Stop
	// returns anyway and the call may return after Stop.
	OnViolation func(v Violation)
	// OnStderr, if set, is called from the stderr reader goroutine with each line
	// the server writes to stderr, without its line terminator. Lines longer than
	// StderrLimit are passed in pieces. Like OnViolation, it must not block.
	OnStderr func(line string)
	// Box, when active, starts the server in that box (see package box):
	// the process started is then the box's launcher, which starts the
	// server and ends with it, and [Process.ExitStatus] is the server's.
	Box *box.Plan
}

// A Process is a running (or finished) MCP server.
type Process struct {
	cfg    Config
	cmd    *exec.Cmd
	launch *box.Launch // when started in a box
	pid    int
	conn   *conn
	track  *tracker // finds the server's processes

	stdin  *os.File // our end of the server's stdin
	stdout *os.File // our end of the server's stdout
	stderr *os.File // our end of the server's stderr
	tail   *ring

	msgs chan jsonrpc.Message // decoded messages; closed when the stdout reader ends

	sinkMu  sync.Mutex            // orders deliveries against Push
	deliver func(jsonrpc.Message) // set by Push: messages go here, not to msgs
	end     func(error)           // set by Push: called once after the last message
	outRead atomic.Int64          // bytes read from stdout
	outUsed atomic.Int64          // bytes of stdout in whole lines
	// inMu guards the input accounting (not the writes themselves, which
	// may block): inWritten counts the bytes written to stdin, a write's
	// bytes from before it begins until it says how many it wrote, so never
	// fewer than have reached the pipe; inReadAtExit is how many bytes of
	// stdin had been read when the leader exited, at most (-1: unknown);
	// inMeasured is set when that was measured while a write was under way.
	inMu         sync.Mutex
	inWritten    int64
	inWriting    bool
	inMeasured   bool
	inReadAtExit int64

	done       chan struct{} // closed when the leader has been reaped
	readerDone chan struct{} // closed when the stdout reader has returned
	stderrDone chan struct{} // closed when the stderr reader has returned
	closed     chan struct{} // closed when Stop or Close was called
	stopped    chan struct{} // closed when the termination sequence has finished

	closeOnce sync.Once
	termOnce  sync.Once
	stopping  atomic.Bool // the termination sequence has begun
	// quietAlone: the sweeps that found the server gone ran while it was
	// the only server, so they took the orphans too (see [unregister]).
	quietAlone  atomic.Bool
	connectOnce sync.Once // for Transport

	mu         sync.Mutex
	exitStatus string
	signalled  string
	stopErr    error
}

// Start launches the server described by cfg. The returned process must be stopped
// with [Process.Stop] (or by closing its connection), even when it exits by itself.
func Start(cfg Config) (*Process, error) {
	if cfg.StderrLimit <= 0 {
		cfg.StderrLimit = DefaultStderrLimit
	}
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = DefaultMaxLine
	}
	path, err := resolve(cfg.Path, cfg.Env, cfg.Dir)
	if err != nil {
		return nil, err
	}
	env, marker := serverEnv(cfg.Env)
	if env == nil {
		env = []string{} // nil would give the child our whole environment
	}

	var files []*os.File // every pipe end, closed on failure
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}

	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{cfg.Path}, cfg.Args...),
		Env:         env,
		Dir:         cfg.Dir,
		Stdin:       inR,
		Stdout:      outW,
		Stderr:      errW,
		SysProcAttr: sysProcAttr(),
	}
	var launch *box.Launch
	if cfg.Box.Active() {
		if launch, err = cfg.Box.Wrap(cmd); err != nil {
			closeAll()
			return nil, fmt.Errorf("starting %s: %w", cfg.Path, err)
		}
	}
	beforeStart()
	starting() // until register: a sweep must not take the new leader for an orphan
	start := cmd.Start
	if launch != nil {
		start = launch.Start
	}
	if err := start(); err != nil {
		register(nil)
		closeAll()
		return nil, fmt.Errorf("starting %s: %w", cfg.Path, err)
	}
	// The child has its own copies; ours would keep the pipes open forever.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &Process{
		cfg:        cfg,
		cmd:        cmd,
		launch:     launch,
		pid:        cmd.Process.Pid,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		tail:       newRing(cfg.StderrLimit),
		msgs:       make(chan jsonrpc.Message, 64),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		closed:     make(chan struct{}),
		stopped:    make(chan struct{}),
	}
	p.conn = &conn{p: p, wlock: make(chan struct{}, 1)}
	p.inReadAtExit = -1
	p.track = newTracker(cmd.Process, marker, p.done) // before wait can reap the leader
	register(p)
	go p.wait()
	go p.readStdout()
	go p.readStderr()
	return p, nil
}

// Connection returns the connection to the server. Every call returns the same
// connection; closing it stops the process.
func (p *Process) Connection() mcp.Connection { return p.conn }

// Transport returns an [mcp.Transport] whose Connect returns [Process.Connection],
// for use with [mcp.Client.Connect]. Only the first Connect of any of a process's
// transports succeeds.
func (p *Process) Transport() mcp.Transport { return &transport{p: p} }

// PID returns the server's process id, which is also its process group id on Unix.
func (p *Process) PID() int { return p.pid }

// Stderr returns the last bytes the server wrote to stderr (at most
// Config.StderrLimit of them).
func (p *Process) Stderr() string { return p.tail.String() }

// Done returns a channel that is closed once the server process has exited and been
// reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitStatus describes how the server ended: "" while it runs, then "exit code N"
// or "signal SIGNAME".
func (p *Process) ExitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitStatus
}

// Signalled returns the strongest signal this package sent to the server's process
// group, "SIGTERM" or "SIGKILL", or "" when it sent none (the server exited by
// itself, for example on end of stdin). Together with [Process.ExitStatus] it tells
// a crash from a termination.
func (p *Process) Signalled() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.signalled
}

// Stop ends the server and everything it started: it closes the server's stdin,
// gives the server a moment to exit by itself, then sends SIGTERM to all the
// server's processes, waits Config.KillGrace, and kills whatever is left, again
// and again until nothing is left. On Linux that includes descendants that left
// the process group (see the package documentation); elsewhere only the group.
// It returns after the server has been reaped, within Config.KillGrace plus about
// 7 seconds whatever the server does; it returns an error if some process could
// not be killed in that time. Stop is idempotent and safe for concurrent use;
// every call waits for the first to finish.
func (p *Process) Stop() error {
	p.closeOnce.Do(func() { close(p.closed) })
	p.terminate()
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopErr
}

// wait reaps the leader and, once it has exited, ends the rest of its group: a
// server that exits must not leave its children behind.
func (p *Process) wait() {
	err := p.cmd.Wait()
	p.noteInputAtExit()
	status := describeExit(p.cmd.ProcessState, err)
	if p.launch != nil {
		// The launcher said how the server ended before it exited itself
		// (or said nothing: it was killed, and its own end is the one).
		if s, ok := p.launch.Status(launcherWait); ok {
			if msg, failed := strings.CutPrefix(s, "error: "); failed {
				s = status + " (the box: " + msg + ")"
			}
			status = s
		}
	}
	p.mu.Lock()
	p.exitStatus = status
	p.mu.Unlock()
	close(p.done)
	p.terminate()
}

// InputWritten returns how many bytes have been written to the server's
// stdin so far, counting a write in progress whole. Read it before a
// request is sent and compare it with [Process.InputReadAtExit] to learn
// whether the server could have read the request before it exited.
func (p *Process) InputWritten() int64 {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	return p.inWritten
}

// InputReadAtExit returns, once the server has exited by itself (see
// [Process.Done]), how many bytes of its stdin had been read when it
// exited, at most: the bytes written minus those still unread in the pipe.
// ok is false while it runs, when it was stopped by [Process.Stop] before
// it exited, or where the pipe cannot be inspected (outside Linux).
//
// A request written at offset w (w = [Process.InputWritten] before it was
// sent) was never read by the server when ok and n <= w: the server had
// exited, or exited afterwards, without reading a byte of it. This is no
// guess about timing: the bytes were still in the pipe when it exited.
func (p *Process) InputReadAtExit() (n int64, ok bool) {
	select {
	case <-p.done:
	default:
		return 0, false
	}
	p.inMu.Lock()
	defer p.inMu.Unlock()
	return p.inReadAtExit, p.inReadAtExit >= 0
}

// noteInputAtExit records [Process.InputReadAtExit] when the leader has just
// exited and before the termination sequence closes stdin. A write under
// way counts whole until it says how much it wrote (see
// [Process.endWrite]): the result is never smaller than what was read, so
// that a request is never said to be unread when the server read some of
// it.
func (p *Process) noteInputAtExit() {
	if p.stopping.Load() {
		return // stopped by us: stdin was closed, the pipe is gone
	}
	p.inMu.Lock()
	defer p.inMu.Unlock()
	left, ok := unread(p.stdin)
	if !ok {
		return
	}
	p.inReadAtExit = max(0, p.inWritten-left)
	p.inMeasured = p.inWriting
}

// beginWrite counts the n bytes of a write about to begin.
func (p *Process) beginWrite(n int) {
	p.inMu.Lock()
	p.inWritten += int64(n)
	p.inWriting = true
	p.inMu.Unlock()
}

// endWrite takes back the bytes of a write of n that did not reach the pipe
// (n - wrote), from the count measured at exit too when that was measured
// during the write: bytes that never reached the pipe were not read.
func (p *Process) endWrite(n, wrote int) {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if short := int64(n - wrote); short > 0 {
		p.inWritten -= short
		if p.inMeasured && p.inReadAtExit >= 0 {
			p.inReadAtExit = max(0, p.inReadAtExit-short)
		}
	}
	p.inWriting, p.inMeasured = false, false
}

// terminate runs the termination sequence once; later calls return at once (use
// p.stopped to wait for it).
func (p *Process) terminate() {
	p.termOnce.Do(func() {
		defer close(p.stopped)
		defer unregister(p)
		p.stopping.Store(true)
		p.stdin.Close() // end of input: the polite way to ask a stdio server to exit
		waitUntil(p.done, time.Now().Add(exitWait))

		deadline := time.Now().Add(p.cfg.KillGrace + killWait)
		err := p.kill(deadline)
		if err == nil && !waitUntil(p.done, deadline) {
			err = fmt.Errorf("process %d was not reaped after SIGKILL", p.pid)
		}
		if err != nil {
			p.mu.Lock()
			p.stopErr = err
			p.mu.Unlock()
		}
		p.drain()
	})
}

// kill ends every process of the server: SIGTERM, then, after Config.KillGrace,
// SIGKILL to the members of each sweep until none is left. Before each SIGKILL the
// members are stopped, so that none can fork a new one unseen. It gives up at
// deadline.
func (p *Process) kill(deadline time.Time) error {
	if p.empty() {
		return nil
	}
	p.signal(sigTerm)
	graceEnd := time.Now().Add(p.cfg.KillGrace)
	for time.Now().Before(graceEnd) {
		time.Sleep(pollInterval)
		if p.empty() {
			return nil
		}
	}
	for {
		p.track.freeze(alone(p))
		p.signal(sigKill)
		time.Sleep(pollInterval)
		if p.empty() {
			return nil
		}
		if time.Now().After(deadline) {
			live, _ := p.track.sweep(alone(p))
			return fmt.Errorf("%d processes of server %d survived SIGKILL", live, p.pid)
		}
	}
}

// empty reports whether the server has no process left: quietSweeps sweeps in a
// row, quietGap apart, found none alive and none that had died since the
// sweep before. Reading /proc is not atomic, so one sweep can miss a child born
// while its parent dies; but that death leaves a zombie, which the sweep sees,
// or the child, alive, which the next sweep sees.
func (p *Process) empty() bool {
	allAlone := true
	for i := 1; ; i++ {
		a := alone(p)
		allAlone = allAlone && a
		if live, dead := p.track.sweep(a); live > 0 || dead > 0 {
			return false
		}
		if i >= quietSweeps {
			p.quietAlone.Store(allAlone)
			return true
		}
		time.Sleep(quietGap)
	}
}

// drain lets the output readers pick up what was written before the end, then
// closes the pipes so that they return even if some process still holds the other
// ends, and waits a little for them.
func (p *Process) drain() {
	end := time.Now().Add(drainWait)
	waitUntil(p.readerDone, end)
	waitUntil(p.stderrDone, end)
	p.stdout.Close()
	p.stderr.Close()
	// Both readers return once their pipe is closed, unless a callback blocks
	// (readStdout's send on p.msgs gives up when p.closed is closed).
	end = time.Now().Add(readerWait)
	waitUntil(p.readerDone, end)
	waitUntil(p.stderrDone, end)
}

// signal sends sig to the server's processes and records it.
func (p *Process) signal(sig os.Signal) {
	p.track.signal(sig)
	p.mu.Lock()
	p.signalled = signalName(sig)
	p.mu.Unlock()
}

// waitUntil waits for ch to be closed, or for deadline. It reports whether ch was
// closed.
func waitUntil(ch <-chan struct{}, deadline time.Time) bool {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return isClosed(ch)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// active holds the servers started and not yet stopped.
var active = struct {
	sync.Mutex
	m        map[*Process]bool
	starting int // Starts between fork and register
}{m: map[*Process]bool{}}

func starting() {
	active.Lock()
	active.starting++
	active.Unlock()
}

// register adds p, whose Start has ended, or (nil) ends a failed Start.
func register(p *Process) {
	active.Lock()
	active.starting--
	if p != nil {
		active.m[p] = true
	}
	active.Unlock()
}

// unregister removes p, whose processes are gone. The last server out
// kills the orphans servers left in sessions of their own (see
// [sweepOrphans]) unless its own sweeps, made alone, took them: servers
// stopped together never stop alone, so none of their stops took those.
func unregister(p *Process) {
	active.Lock()
	delete(active.m, p)
	active.Unlock()
	// A server that was alone when it was found gone took the orphans
	// with its own processes: no second scan.
	if !p.quietAlone.Load() && idle() {
		sweepOrphans(idle, time.Now().Add(killWait))
	}
}

// idle reports whether no server is running or being started.
func idle() bool {
	active.Lock()
	defer active.Unlock()
	return len(active.m) == 0 && active.starting == 0
}

// alone reports whether p is the only server not yet stopped, and no other is
// being started.
func alone(p *Process) bool {
	active.Lock()
	defer active.Unlock()
	return len(active.m) == 1 && active.m[p] && active.starting == 0
}

// ownChildren is set by [OwnChildren].
var ownChildren atomic.Bool

// OwnChildren declares that this program starts child processes only through
// [Start]. On Linux, a stopping server then takes every child of the program that
// is not a server it started, that is every orphan reparented to the program as
// subreaper, for one of its own escaped processes when no other server is running,
// and kills it: even one that moved to a process group of its own in the
// program's session and emptied its environment. Without it, only orphans in a
// session of their own are. Call it before the first Start, and only in a program
// that starts no other children: they would be killed. Elsewhere it has no effect.
func OwnChildren() { ownChildren.Store(true) }

// transport adapts a Process to [mcp.Transport].
type transport struct{ p *Process }

func (t *transport) Connect(context.Context) (mcp.Connection, error) {
	var c mcp.Connection
	t.p.connectOnce.Do(func() { c = t.p.Connection() })
	if c == nil {
		return nil, errors.New("stdio: process is already connected")
	}
	return c, nil
}
