package box_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
)

// The test binary plays every part, chosen by roleVar: "outer" is
// mcp-fuzz (it holds a secret in its environment and command line and
// starts the hostile server in a box, or not); the others are hostile
// servers.
const (
	roleVar   = "BOX_TEST_ROLE"
	targetVar = "BOX_TEST_TARGET" // the pid the hostile server goes after
	offVar    = "BOX_TEST_OFF"    // "1": the outer runs its server with --no-box
	serverVar = "BOX_TEST_SERVER" // the role of the outer's server
	tokenVar  = "BOX_TEST_TOKEN"  // names the daemon's process
)

// secretValue is what the outer holds; a server that finds it has read
// the outer's environment or command line.
const secretValue = "ghp_boxTestSecret0123456789abcdefABCDEF"

// attempt is what the hostile server managed.
type attempt struct {
	Environ  string `json:"environ"`  // "secret", "read" or the error
	Cmdline  string `json:"cmdline"`  // the same
	Mem      string `json:"mem"`      // "read" or the error
	Signal   string `json:"signal"`   // "sent" or the error of kill(target, 0)
	UID      int    `json:"uid"`      // its own uid
	Bounding string `json:"bounding"` // its CapBnd line
	// Modes: what chmod 0755, chmod 04755, chmod 0777 and a setuid
	// O_CREAT said ("ok" or the error), in that order.
	Modes []string `json:"modes,omitempty"`
}

// outcome is what the outer prints: its server's attempt and the plan.
type outcome struct {
	Attempt attempt  `json:"attempt"`
	Lines   []string `json:"lines"`
	Warning string   `json:"warning"`
	Status  string   `json:"status"`
	Stderr  string   `json:"stderr"`
}

// runRole runs the role named in the environment, if any, and exits.
func runRole() {
	switch os.Getenv(roleVar) {
	case "":
		return
	case "outer":
		os.Exit(outer())
	case "snoop":
		os.Exit(snoop())
	case "stopper":
		os.Exit(stopper())
	case "daemon":
		os.Exit(daemon())
	case "sleeper":
		os.Exit(sleeper())
	case "chmoder":
		os.Exit(chmoder())
	default:
		fmt.Fprintln(os.Stderr, "unknown role")
		os.Exit(2)
	}
}

// outer starts its own executable as the server named by serverVar,
// through a box (or not), and prints the outcome as JSON.
func outer() int {
	self, _ := os.Executable()
	env := []string{roleVar + "=" + os.Getenv(serverVar), targetVar + "=" + strconv.Itoa(os.Getpid()), tokenVar + "=" + os.Getenv(tokenVar), "PATH=/usr/bin:/bin"}
	plan := box.New(box.Options{Off: os.Getenv(offVar) == "1", Path: self, Env: env})
	defer plan.Close()
	cmd := exec.Command(self)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	var l *box.Launch
	if plan.Active() {
		var err error
		if l, err = plan.Wrap(cmd); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	start := cmd.Start
	if l != nil {
		start = l.Start
	}
	if err := start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = cmd.Wait()
	o := outcome{Lines: plan.Lines(), Warning: plan.Warning(), Stderr: errb.String()}
	if l != nil {
		o.Status, _ = l.Status(time.Second)
	}
	_ = json.Unmarshal([]byte(out.String()), &o.Attempt)
	b, _ := json.Marshal(o)
	fmt.Println(string(b))
	return 0
}

// snoop reads what it can of its target and prints it as JSON.
func snoop() int {
	target := os.Getenv(targetVar)
	var a attempt
	a.Environ = readFile("/proc/" + target + "/environ")
	a.Cmdline = readFile("/proc/" + target + "/cmdline")
	if f, err := os.Open("/proc/" + target + "/mem"); err != nil {
		a.Mem = err.Error()
	} else {
		a.Mem = "read"
		f.Close()
	}
	pid, _ := strconv.Atoi(target)
	if err := syscall.Kill(pid, 0); err != nil {
		a.Signal = err.Error()
	} else {
		a.Signal = "sent"
	}
	a.UID = os.Getuid()
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "CapBnd:") {
				a.Bounding = strings.TrimSpace(strings.TrimPrefix(line, "CapBnd:"))
			}
		}
	}
	b, _ := json.Marshal(a)
	fmt.Print(string(b))
	return 0
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	switch {
	case err != nil:
		return err.Error()
	case strings.Contains(string(b), secretValue):
		return "secret"
	}
	return "read"
}

// stopper sends SIGSTOP to its target, then SIGKILL, and reports.
func stopper() int {
	pid, _ := strconv.Atoi(os.Getenv(targetVar))
	var a attempt
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		a.Signal = err.Error()
	} else {
		a.Signal = "sent"
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	b, _ := json.Marshal(a)
	fmt.Print(string(b))
	return 0
}

// daemon starts a child in a session of its own, named by tokenVar so
// that the test can find it in /proc, says so on stdout, and sleeps.
func daemon() int {
	self, _ := os.Executable()
	cmd := &exec.Cmd{Path: self, Args: []string{"box-daemon-" + os.Getenv(tokenVar)}, Env: []string{roleVar + "=sleeper"},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	time.Sleep(300 * time.Second)
	return 0
}

// sleeper sleeps.
func sleeper() int {
	time.Sleep(300 * time.Second)
	return 0
}

// chmoder tries to set modes on files it makes in the temporary
// directory, and prints what it managed.
func chmoder() int {
	dir, err := os.MkdirTemp("", "box-chmod-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	f := dir + "/f"
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	result := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return "ok"
	}
	var a attempt
	a.UID = os.Getuid()
	a.Modes = append(a.Modes, result(syscall.Chmod(f, 0o755)), result(syscall.Chmod(f, 0o4755)), result(syscall.Chmod(f, 0o777)))
	fd, err := syscall.Open(dir+"/g", syscall.O_CREAT|syscall.O_WRONLY, 0o4755)
	if err == nil {
		syscall.Close(fd)
	}
	a.Modes = append(a.Modes, result(err))
	b, _ := json.Marshal(a)
	fmt.Print(string(b))
	return 0
}
