package box_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
)

func TestMain(m *testing.M) {
	runRole()
	os.Exit(m.Run())
}

// nobodyCopy copies the test binary where uid 65534 can run it, for the
// runs of mcp-fuzz as an unprivileged user.
func nobodyCopy(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	dir, err := os.MkdirTemp("", "box-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(dir, "box.test")
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// runOuter runs the outer role (mcp-fuzz) with server as its server, as
// uid (-1: this test's), with the box on or off, and returns what it
// printed and how it ended. It gives up after limit.
func runOuter(t *testing.T, exe string, uid int, server string, off bool, limit time.Duration) (outcome, *os.ProcessState) {
	t.Helper()
	offVal := "0"
	if off {
		offVal = "1"
	}
	cmd := exec.Command(exe, "--bearer", secretValue)
	cmd.Env = []string{roleVar + "=outer", serverVar + "=" + server, offVar + "=" + offVal, secretVar + "=" + secretValue, "PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if uid >= 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	var o outcome
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &o); err != nil {
			t.Fatalf("outer printed %q: %v (stderr %q)", out.String(), err, errb.String())
		}
	}
	return o, cmd.ProcessState
}

// secretEnvVar is the outer's secret variable.
const secretVar = "BOX_TEST_SECRET"

func TestEnvironmentAndMemoryOutOfReach(t *testing.T) {
	t.Parallel()
	self, _ := os.Executable()
	cases := []struct {
		name string
		exe  func(t *testing.T) string
		uid  int
	}{
		{"as root", func(*testing.T) string { return self }, -1},
		{"as root, the server reachable by nobody", nobodyCopy, -1},
		{"as an unprivileged user", nobodyCopy, 65534},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			exe := c.exe(t)
			// The hostile fixture works: without the box it reads the secret.
			o, _ := runOuter(t, exe, c.uid, "snoop", true, 30*time.Second)
			if o.Attempt.Environ != "secret" {
				t.Fatalf("--no-box: the snoop did not read the environment (%q): the test proves nothing", o.Attempt.Environ)
			}
			if !strings.Contains(o.Warning, "--no-box") {
				t.Errorf("--no-box: warning %q", o.Warning)
			}
			o, _ = runOuter(t, exe, c.uid, "snoop", false, 30*time.Second)
			t.Logf("containment: %s", strings.Join(o.Lines, "; "))
			if o.Attempt.Environ == "secret" || o.Attempt.Environ == "read" {
				t.Errorf("boxed server read the environment of mcp-fuzz: %q", o.Attempt.Environ)
			}
			if o.Attempt.Mem == "read" {
				t.Errorf("boxed server opened /proc/PID/mem of mcp-fuzz")
			}
			if o.Attempt.Signal == "sent" {
				t.Errorf("boxed server may signal mcp-fuzz")
			}
			switch {
			case c.uid >= 0 && o.Attempt.UID != c.uid:
				t.Errorf("server uid %d, want mcp-fuzz's %d", o.Attempt.UID, c.uid)
			case c.uid < 0 && o.Attempt.UID == 0 && o.Attempt.Bounding != "0000000000000000":
				t.Errorf("server as uid 0 kept capabilities: CapBnd %s", o.Attempt.Bounding)
			case c.uid < 0 && o.Attempt.UID != 0 && o.Attempt.UID != boxUID():
				t.Errorf("server uid %d, want %d (the box's account) or 0 without capabilities", o.Attempt.UID, boxUID())
			}
			if o.Warning != "" && (o.Attempt.UID != 0 || !strings.Contains(o.Warning, "uid 0")) {
				t.Errorf("box on: warning %q", o.Warning)
			}
			if o.Attempt.UID == 0 && !strings.Contains(o.Warning, "uid 0") {
				t.Errorf("server left at uid 0 without the warning that says what it keeps")
			}
			if o.Status != "exit code 0" {
				t.Errorf("status %q, want the server's exit code 0 (stderr %q)", o.Status, o.Stderr)
			}
		})
	}
}

func TestStopSignalDoesNotReachMcpFuzz(t *testing.T) {
	t.Parallel()
	self, _ := os.Executable()
	// Without the box the stopper stops and kills mcp-fuzz: no outcome.
	o, st := runOuter(t, self, -1, "stopper", true, 10*time.Second)
	if st.Success() || o.Attempt.Signal != "" {
		t.Fatalf("--no-box: mcp-fuzz survived the stopper (%+v, %v): the test proves nothing", o.Attempt, st)
	}
	o, st = runOuter(t, self, -1, "stopper", false, 30*time.Second)
	if !st.Success() {
		t.Fatalf("boxed: mcp-fuzz ended with %v", st)
	}
	if o.Attempt.Signal == "sent" || o.Attempt.Signal == "" {
		t.Errorf("boxed: the stopper's kill said %q", o.Attempt.Signal)
	}
}

// findDaemon returns the pids whose command line holds token.
func findDaemon(token string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), "box-daemon-"+token) {
			var pid int
			if _, err := fmt.Sscan(e.Name(), &pid); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func TestDaemonDiesWithKilledMcpFuzz(t *testing.T) {
	t.Parallel()
	self, _ := os.Executable()
	for _, off := range []bool{true, false} {
		token := rand.Text()
		cmd := exec.Command(self)
		cmd.Env = []string{roleVar + "=outer", serverVar + "=daemon", tokenVar + "=" + token, "PATH=/usr/bin:/bin", offVar + "=" + map[bool]string{true: "1", false: "0"}[off]}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(findDaemon(token)) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(findDaemon(token)) == 0 {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("off=%v: the daemon never started", off)
		}
		_ = cmd.Process.Kill() // mcp-fuzz killed outright: no Stop
		_ = cmd.Wait()
		// Boxed, the kernel ends it at once; unboxed, it would live on:
		// 2 s says enough.
		wait := 10 * time.Second
		if off {
			wait = 2 * time.Second
		}
		deadline = time.Now().Add(wait)
		for len(findDaemon(token)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		left := findDaemon(token)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		switch {
		case off && len(left) == 0:
			t.Fatalf("--no-box: the daemon died with mcp-fuzz anyway: the test proves nothing")
		case !off && len(left) > 0:
			t.Errorf("boxed: the daemon outlived mcp-fuzz (pids %v)", left)
		}
	}
}

// boxUID is the uid of the box's account on this machine: mcp-fuzz-box
// where it exists (the image), else nobody.
func boxUID() int {
	if u, err := user.Lookup(box.BoxUser); err == nil {
		if n, err := strconv.Atoi(u.Uid); err == nil {
			return n
		}
	}
	return 65534
}

// TestRootServerCannotSetSetuid: a server left at uid 0 owns root's files;
// it may still chmod its own files as servers do, but not make anything
// setuid, setgid or writable by everybody, which would outlive the run.
func TestRootServerCannotSetSetuid(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	t.Parallel()
	self, _ := os.Executable()
	o, _ := runOuter(t, self, -1, "chmoder", false, 30*time.Second)
	if o.Attempt.UID != 0 {
		t.Skipf("the server ran as uid %d, not 0 (the test binary is reachable by another uid)", o.Attempt.UID)
	}
	want := []string{"ok", "operation not permitted", "operation not permitted", "operation not permitted"}
	if len(o.Attempt.Modes) != len(want) {
		t.Fatalf("modes %v (stderr %q)", o.Attempt.Modes, o.Stderr)
	}
	for i, w := range want {
		if !strings.Contains(o.Attempt.Modes[i], w) {
			t.Errorf("mode attempt %d: %q, want %q", i, o.Attempt.Modes[i], w)
		}
	}
	// The fixture works: without the box the same calls succeed.
	o, _ = runOuter(t, self, -1, "chmoder", true, 30*time.Second)
	if len(o.Attempt.Modes) != 4 || o.Attempt.Modes[1] != "ok" || o.Attempt.Modes[3] != "ok" {
		t.Errorf("--no-box: modes %v: the test proves nothing", o.Attempt.Modes)
	}
}
