//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// Pinned versions of the reference servers. They must match
// testdata/package-lock.json; TestMain checks the installed packages against
// them, so a lock bump without a look at NOTES.md and the tests is noticed.
var pinnedServers = map[string]string{
	"server-everything":          "2026.8.31",
	"server-memory":              "2026.8.31",
	"server-filesystem":          "2026.8.31",
	"server-sequential-thinking": "2026.8.31",
}

const (
	// startTimeout bounds how long a helper waits for a server to come up.
	startTimeout = 20 * time.Second
	// killGrace is how long a process group gets between SIGTERM and SIGKILL.
	killGrace = 5 * time.Second
	// orphanWait is how long checkNoOrphans waits for processes to disappear.
	orphanWait = 5 * time.Second
)

var (
	// skipReason is set by TestMain when the servers cannot run here (no
	// node); every test then skips with it.
	skipReason string
	// nodePath is the absolute path of the node binary.
	nodePath string
	// testdataDir is the absolute path of e2e/testdata.
	testdataDir string
	// entries maps a package name (e.g. "server-memory") to the absolute path
	// of the script its package.json "bin" names.
	entries = map[string]string{}
)

func TestMain(m *testing.M) {
	os.Exit(runMain(fixture.Wrap(m)))
}

func runMain(m fixture.Runner) int {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	testdataDir = dir

	node, err := exec.LookPath("node")
	if err != nil {
		skipReason = "node is not on PATH; the end-to-end tests need node (and npm) to run the MCP reference servers"
		fmt.Fprintf(os.Stderr, "e2e: %s: skipping every test\n", skipReason)
		return m.Run()
	}
	if nodePath, err = filepath.Abs(node); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	setup := exec.CommandContext(ctx, "bash", filepath.Join(filepath.Dir(testdataDir), "setup.sh"))
	setup.Stdout = os.Stderr
	setup.Stderr = os.Stderr
	if err := setup.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: setup.sh failed: %v\n", err)
		return 1
	}

	for pkg, want := range pinnedServers {
		entry, version, err := packageEntry(pkg)
		if err != nil {
			if _, npmErr := exec.LookPath("npm"); npmErr != nil {
				skipReason = fmt.Sprintf("npm is not on PATH and the reference servers are not installed (%v)", err)
				fmt.Fprintf(os.Stderr, "e2e: %s: skipping every test\n", skipReason)
				return m.Run()
			}
			fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
			return 1
		}
		if version != want {
			fmt.Fprintf(os.Stderr, "e2e: @modelcontextprotocol/%s is %s, the harness pins %s\n", pkg, version, want)
			return 1
		}
		entries[pkg] = entry
	}
	return m.Run()
}

// packageEntry reads node_modules/@modelcontextprotocol/<pkg>/package.json
// and returns the absolute path of the script its "bin" names, and the
// package's version.
func packageEntry(pkg string) (entry, version string, err error) {
	pkgDir := filepath.Join(testdataDir, "node_modules", "@modelcontextprotocol", pkg)
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", "", fmt.Errorf("reference server @modelcontextprotocol/%s is not installed: %w", pkg, err)
	}
	var meta struct {
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", "", fmt.Errorf("%s/package.json: %w", pkg, err)
	}
	// "bin" is either a path or a map from command name to path.
	var bin string
	if err := json.Unmarshal(meta.Bin, &bin); err != nil {
		var bins map[string]string
		if err := json.Unmarshal(meta.Bin, &bins); err != nil || len(bins) != 1 {
			return "", "", fmt.Errorf("%s/package.json: want one \"bin\" entry, got %s", pkg, meta.Bin)
		}
		for _, b := range bins {
			bin = b
		}
	}
	entry = filepath.Join(pkgDir, filepath.FromSlash(bin))
	if _, err := os.Stat(entry); err != nil {
		return "", "", fmt.Errorf("%s: bin script: %w", pkg, err)
	}
	return entry, meta.Version, nil
}

// requireNode skips t when the reference servers cannot run here.
func requireNode(t testing.TB) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// serverCommand says how to start a stdio server.
type serverCommand struct {
	// Args is the argv; Args[0] is the absolute path of node and every path
	// in it is absolute, so it works from any working directory.
	Args []string
	// Env holds the KEY=VALUE pairs the server needs on top of a minimal
	// environment (see minimalEnv); mcp-fuzz gets them as --env flags.
	Env []string
	// Root is the temporary directory the server is confined to or keeps its
	// data in ("" when it touches no files).
	Root string
}

// everythingEnv keeps server-everything's gzip-file-as-resource tool (not
// read-only, openWorldHint true) from fetching anything but localhost: by
// default it fetches any http(s) URL it is given, and a public README without
// arguments. everythingHTTP sets it; a stdio test that may call that tool
// should pass it too, or skip the tool.
var everythingEnv = []string{"GZIP_ALLOWED_DOMAINS=localhost"}

// everythingStdio returns the argv that starts server-everything over stdio.
// It needs no environment variables (see everythingEnv).
func everythingStdio(t *testing.T) []string {
	t.Helper()
	requireNode(t)
	return []string{nodePath, entries["server-everything"], "stdio"}
}

// memoryStdio returns how to start server-memory over stdio with its
// knowledge graph in a file under t.TempDir() (MEMORY_FILE_PATH); without
// that variable the server writes next to its own script in node_modules.
func memoryStdio(t *testing.T) serverCommand {
	t.Helper()
	requireNode(t)
	root := t.TempDir()
	return serverCommand{
		Args: []string{nodePath, entries["server-memory"]},
		Env:  []string{"MEMORY_FILE_PATH=" + filepath.Join(root, "memory.jsonl")},
		Root: root,
	}
}

// filesystemStdio returns how to start server-filesystem over stdio, allowed
// to access only a fresh t.TempDir() that holds hello.txt, notes.md and
// sub/nested.txt.
//
// The server replaces its allowed directories with the client's roots when
// the client advertises the roots capability and answers roots/list with a
// non-empty list; the go-sdk client answers with an empty list by default,
// which keeps the directory given here.
func filesystemStdio(t *testing.T) serverCommand {
	t.Helper()
	requireNode(t)
	root := t.TempDir()
	files := map[string]string{
		"hello.txt":      "hello, world\n",
		"notes.md":       "# Notes\n\n- one\n- two\n",
		"sub/nested.txt": "nested file\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return serverCommand{
		Args: []string{nodePath, entries["server-filesystem"], root},
		Root: root,
	}
}

// sequentialThinkingStdio returns how to start server-sequential-thinking
// over stdio. It prints every thought to stderr unless
// DISABLE_THOUGHT_LOGGING=true is set; that is left on here.
func sequentialThinkingStdio(t *testing.T) serverCommand {
	t.Helper()
	requireNode(t)
	return serverCommand{Args: []string{nodePath, entries["server-sequential-thinking"]}}
}

// everythingHTTP starts server-everything in its Streamable HTTP mode on a
// free port of 127.0.0.1, waits (at most startTimeout) until the port accepts
// connections, and returns the endpoint URL, http://127.0.0.1:PORT/mcp.
//
// The server reads its port from $PORT and calls listen without a host, which
// binds every interface; node is started with --require testdata/loopback.cjs
// so that it binds 127.0.0.1 only, and the test fails if it listens anywhere
// else. It runs in its own process group; a t.Cleanup sends SIGTERM to the
// group, SIGKILL after killGrace, and checks that nothing is left.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	requireNode(t)
	var errs []error
	// A port found free can be taken before node binds it: try a few.
	for range 3 {
		url, err := startEverythingHTTP(t)
		if err == nil {
			return url
		}
		errs = append(errs, err)
	}
	t.Fatalf("starting server-everything (streamableHttp): %v", errors.Join(errs...))
	return ""
}

func startEverythingHTTP(t *testing.T) (string, error) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(nodePath, "--require", filepath.Join(testdataDir, "loopback.cjs"),
		entries["server-everything"], "streamableHttp")
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(minimalEnv(), everythingEnv...), "PORT="+strconv.Itoa(port))
	out := newTailBuffer(64 << 10)
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	stop := func() {
		killGroup(pgid, exited)
		checkNoOrphans(t, pgid)
	}

	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-exited:
			stop()
			return "", fmt.Errorf("server exited before accepting connections on %s (%v); output:\n%s", addr, cmd.ProcessState, out)
		default:
		}
		conn, err := net.DialTimeout("tcp", addr, 250*time.Millisecond)
		if err == nil {
			conn.Close()
			if pidListensOn(pgid, port) {
				break
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("server did not accept connections on %s within %v; output:\n%s", addr, startTimeout, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("server-everything (streamableHttp) output:\n%s", out)
		}
	})
	assertLoopbackOnly(t, port)
	return "http://" + addr + "/mcp", nil
}

// killGroup sends SIGTERM to process group pgid, and SIGKILL when the leader
// has not exited (exited not closed) within killGrace. It then sends SIGKILL
// to whatever is left in the group.
func killGroup(pgid int, exited <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(killGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(killGrace):
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // stragglers; ESRCH when none
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// minimalEnv returns the allowlisted variables of this process's environment
// that mcp-fuzz passes to a stdio server (docs/BEHAVIOUR.md#targets-and-transports).
func minimalEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// procInfo describes one process found in /proc.
type procInfo struct {
	pid, ppid, pgid int
	state           string
	cmdline         string
}

// checkNoOrphans waits up to orphanWait until no live process has a PID or a
// process-group ID among ids (read from /proc), and reports every one left as
// a test error; those are then killed with SIGKILL so that nothing outlives
// the test. Zombies (state Z) hold no resources and are only logged: on
// machines whose PID 1 does not reap, a killed grandchild stays one.
func checkNoOrphans(t testing.TB, ids ...int) {
	t.Helper()
	waitNoOrphans(t, orphanWait, ids...)
}

// waitNoOrphans is checkNoOrphans with a given wait.
func waitNoOrphans(t testing.TB, wait time.Duration, ids ...int) {
	t.Helper()
	if len(ids) == 0 {
		return
	}
	deadline := time.Now().Add(wait)
	for {
		procs, err := findProcs(ids)
		if err != nil {
			t.Logf("checkNoOrphans: cannot read /proc: %v", err)
			return
		}
		var live []procInfo
		for _, p := range procs {
			if p.state != "Z" {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			for _, p := range procs {
				t.Logf("checkNoOrphans: zombie pid %d (pgid %d, parent %d): %s", p.pid, p.pgid, p.ppid, p.cmdline)
			}
			return
		}
		if time.Now().After(deadline) {
			// Children usually have higher PIDs than their parents: kill them
			// first, so that none is reparented while it still runs.
			slices.SortFunc(live, func(a, b procInfo) int { return b.pid - a.pid })
			for _, p := range live {
				t.Errorf("process left behind: pid %d pgid %d parent %d state %s: %s", p.pid, p.pgid, p.ppid, p.state, p.cmdline)
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// findProcs lists the processes whose PID or process-group ID is in ids.
func findProcs(ids []int) ([]procInfo, error) {
	want := make(map[int]bool, len(ids))
	for _, id := range ids {
		if id > 0 {
			want[id] = true
		}
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var found []procInfo
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		if !want[pid] && !want[pgid] {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		found = append(found, procInfo{
			pid: pid, ppid: ppid, pgid: pgid, state: f[0],
			cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")),
		})
	}
	return found, nil
}

// assertLoopbackOnly fails t when a TCP socket listening on port is bound to
// an address other than a loopback one, and when none listens on it at all
// (read from /proc/net/tcp and /proc/net/tcp6).
func assertLoopbackOnly(t testing.TB, port int) {
	t.Helper()
	var listening int
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socks, err := listenSockets(file, port)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			t.Logf("assertLoopbackOnly: %v", err)
			return
		}
		for _, sock := range socks {
			listening++
			if !sock.ip.IsLoopback() {
				t.Errorf("a socket listens on %s port %d: not loopback only", sock.ip, port)
			}
		}
	}
	if listening == 0 {
		t.Errorf("no socket listens on port %d", port)
	}
}

// listenSocket is a TCP socket in LISTEN state read from /proc/net/tcp{,6}.
type listenSocket struct {
	ip    net.IP
	inode string
}

// listenSockets returns the sockets in LISTEN state on port found in a
// /proc/net/tcp-style file.
func listenSockets(file string, port int) ([]listenSocket, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var socks []listenSocket
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" { // 0A = TCP_LISTEN
			continue
		}
		host, portHex, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		p, err := strconv.ParseUint(portHex, 16, 16)
		if err != nil || int(p) != port {
			continue
		}
		raw, err := hex.DecodeString(host)
		if err != nil || len(raw)%4 != 0 {
			continue
		}
		// The kernel prints each 32-bit word of the address in host byte
		// order; the machines this runs on (amd64, arm64) are little-endian.
		for i := 0; i < len(raw); i += 4 {
			raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
		}
		socks = append(socks, listenSocket{ip: net.IP(raw), inode: fields[9]})
	}
	return socks, sc.Err()
}

// pidListensOn reports whether process pid holds a TCP socket listening on
// port, so that a connection accepted there is known to reach it and not
// another process that took the port first.
func pidListensOn(pid, port int) bool {
	inodes := map[string]bool{}
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socks, _ := listenSockets(file, port)
		for _, s := range socks {
			inodes["socket:["+s.inode+"]"] = true
		}
	}
	fdDir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && inodes[link] {
			return true
		}
	}
	return false
}

// tailBuffer is an io.Writer that keeps the last max bytes written to it; it
// is safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
