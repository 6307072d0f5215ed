package hideproc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// caseVar picks what the test binary does when started as a re-execution
// test's child (see TestMain): "secrets", "large" or "broken".
const caseVar = "HIDEPROC_TEST_CASE"

// The values a child is started with, which its /proc entries must not
// show once re-executed.
const (
	bearer = "s3cr3t-XYZ-bearer"
	token  = "ghp_0123456789abcdefghij0123456789ABCDEF"
	header = "Authorization: Bearer hdr-s3cr3t-0042"
	output = "/tmp/secret-place/report.json"
)

// childArgs are the arguments a child is started with (after the program).
var childArgs = []string{"--bearer", bearer, "--header", header, "-o", output, "--", "srv", "a\xffb"}

// bigVars is the number of 64 KiB variables of the "large" case: 1 MiB.
const bigVars = 16

func bigValue(i int) string {
	return strings.Repeat(fmt.Sprintf("%02d-%c", i, 'a'+i), 64<<10/4)
}

func TestMain(m *testing.M) {
	_, handoff := os.LookupEnv(HandoffVar)
	if handoff || os.Getenv(caseVar) != "" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

// child is the test binary started by a test: it prints its pid, calls
// [Args] (which re-executes it, and it prints its pid again), checks what
// the case says and exits 7 when all is well, 1 when not.
func child() int {
	fmt.Printf("pid %d\n", os.Getpid())
	got := Args()
	var failed []string
	fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }
	cmdline, err := os.ReadFile("/proc/self/cmdline")
	if err != nil {
		fail("%v", err)
	}
	environ, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		fail("%v", err)
	}
	want := append([]string{os.Args[0]}, childArgs...)
	switch os.Getenv(caseVar) {
	case "secrets", "large":
		for _, secret := range []string{bearer, token, "hdr-s3cr3t", output} {
			if bytes.Contains(cmdline, []byte(secret)) {
				fail("/proc/self/cmdline shows %q: %q", secret, cmdline)
			}
			if bytes.Contains(environ, []byte(secret)) {
				fail("/proc/self/environ shows %q", secret)
			}
		}
		if string(cmdline) != os.Args[0]+"\x00" {
			fail("/proc/self/cmdline = %q, want the program name alone", cmdline)
		}
		if !bytes.Contains(environ, []byte("PATH=")) {
			fail("/proc/self/environ lost PATH: %q", environ)
		}
		if !slices.Equal(got, want) || !slices.Equal(os.Args, want) {
			fail("Args() = %q, os.Args = %q; want %q", got, os.Args, want)
		}
		for k, v := range map[string]string{"GITHUB_TOKEN": token, "MCP_FUZZ_BEARER": bearer, "ODD": "a\xffb=c", "WEIRD-NAME.x": "1"} {
			if g, ok := os.LookupEnv(k); !ok || g != v {
				fail("os.LookupEnv(%q) = %q, %v; want %q", k, g, ok, v)
			}
		}
		if v, ok := os.LookupEnv(HandoffVar); ok {
			fail("%s still set: %q", HandoffVar, v)
		}
		fds, _ := os.ReadDir("/proc/self/fd")
		for _, fd := range fds {
			if link, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); strings.Contains(link, "mcp-fuzz-handoff") {
				fail("the handoff is still open as descriptor %s", fd.Name())
			}
		}
		if os.Getenv(caseVar) == "large" {
			for i := range bigVars {
				if v := os.Getenv(fmt.Sprintf("BIG_%02d", i)); v != bigValue(i) {
					fail("BIG_%02d: got %d bytes, want %d", i, len(v), len(bigValue(i)))
				}
			}
		}
	case "broken":
		if !slices.Equal(got, os.Args) || !bytes.Contains(cmdline, []byte("--bearer")) {
			fail("Args() = %q, want the visible arguments %q", got, os.Args)
		}
	default:
		fail("unknown case %q", os.Getenv(caseVar))
	}
	for _, f := range failed {
		fmt.Fprintln(os.Stderr, "FAIL:", f)
	}
	if len(failed) > 0 {
		return 1
	}
	return 7
}

// start runs the test binary as a child with env and extra descriptors,
// and returns its pid, stdout and stderr once it exited 7.
func start(t *testing.T, env []string, extra ...*os.File) (pid int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], childArgs...)
	cmd.Env = env
	cmd.ExtraFiles = extra
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("child: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	return cmd.Process.Pid, out.String(), errOut.String()
}

// baseEnv is the environment of every child: a few harmless variables,
// secrets, and names and values that are unusual but legal (os/exec keeps
// one entry of a name: restore is tested with duplicates on its own).
func baseEnv(c string) []string {
	return []string{
		caseVar + "=" + c, "PATH=" + os.Getenv("PATH"), "HOME=/nonexistent",
		"GITHUB_TOKEN=" + token, "MCP_FUZZ_BEARER=" + bearer,
		"ODD=a\xffb=c", "WEIRD-NAME.x=1", "=leading",
	}
}

// pids checks that stdout has n "pid" lines, all of pid.
func pids(t *testing.T, stdout string, pid, n int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != n {
		t.Fatalf("child printed %d pid lines, want %d:\n%s", len(lines), n, stdout)
	}
	for _, l := range lines {
		if l != "pid "+strconv.Itoa(pid) {
			t.Errorf("child line %q, want pid %d: the re-execution must keep the pid", l, pid)
		}
	}
}

func TestArgsHidesSecretsFromProc(t *testing.T) {
	t.Parallel()
	pid, stdout, stderr := start(t, baseEnv("secrets"))
	pids(t, stdout, pid, 2)
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestArgsLargeEnvironment(t *testing.T) {
	t.Parallel()
	env := baseEnv("large")
	for i := range bigVars {
		env = append(env, fmt.Sprintf("BIG_%02d=%s", i, bigValue(i)))
	}
	pid, stdout, stderr := start(t, env)
	pids(t, stdout, pid, 2)
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestArgsBrokenHandoff(t *testing.T) {
	t.Parallel()
	garbage := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(garbage, []byte("mcp-fuzz handoff 1\nnonsense"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(t *testing.T) *os.File {
		f, err := os.Open(garbage)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	pipe := func(t *testing.T) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r // never written: reading it would block
	}
	sealed := func(t *testing.T) *os.File {
		fd, err := unix.MemfdCreate("mcp-fuzz-handoff", unix.MFD_ALLOW_SEALING|unix.MFD_CLOEXEC)
		if err != nil {
			t.Skipf("memfd_create: %v", err)
		}
		f := os.NewFile(uintptr(fd), "memfd")
		t.Cleanup(func() { f.Close() })
		if _, err := f.WriteString(magic + "\xff\xff\xff\xffgarbage"); err != nil {
			t.Fatal(err)
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		name  string
		value string
		file  func(*testing.T) *os.File
	}{
		{"not a number", "abc", nil},
		{"standard input", "0", nil},
		{"closed descriptor", "9", nil},
		{"regular file", "3", open},
		{"pipe", "3", pipe},
		{"sealed garbage", "3", sealed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var extra []*os.File
			if tc.file != nil {
				extra = append(extra, tc.file(t))
			}
			pid, stdout, stderr := start(t, append(baseEnv("broken"), HandoffVar+"="+tc.value), extra...)
			pids(t, stdout, pid, 1) // no second start: no loop
			if !strings.Contains(stderr, "cannot be read") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line saying the handoff cannot be read", stderr)
			}
		})
	}
}
