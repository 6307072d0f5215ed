package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// spec says how to run one measured process.
type spec struct {
	argv    []string
	env     []string // added to this process's environment
	limitAS int64    // RLIMIT_AS in bytes for the process and its children; 0 for none
	timeout time.Duration
	stdout  string // file for stdout; "" discards it
	stderr  string // file for stderr, searched for a fatal error; "" keeps only its tail
}

// proc is what one measured process did.
type proc struct {
	WallS    float64 `json:"wall_s"`
	ExitCode int     `json:"exit_code"` // -1 when killed by a signal
	Signal   string  `json:"signal,omitempty"`
	// MaxRSSKiB is wait4's ru_maxrss. Linux carries the high-water mark
	// across execve, and Go forks sharing benchrun's memory, so it can be
	// benchrun's own peak (190 MiB after the npm rows) rather than the
	// child's: see peakKiB.
	MaxRSSKiB int64  `json:"maxrss_kib"`
	HWMKiB    int64  `json:"hwm_kib"` // the process's own VmHWM, polled every 20 ms
	TimedOut  bool   `json:"timed_out,omitempty"`
	LimitHit  bool   `json:"limit_hit,omitempty"`
	Fatal     string `json:"fatal,omitempty"` // the first "fatal error:" or "panic:" line of stderr
	Stderr    string `json:"stderr_tail,omitempty"`
}

// failed says why p did not end normally, or "" when it did.
func (p proc) failed() string {
	switch {
	case p.TimedOut:
		return fmt.Sprintf("timeout after %.0f s", p.WallS)
	case p.LimitHit:
		return fmt.Sprintf("OOM/limit hit after %.1f s", p.WallS)
	case p.Fatal != "":
		return fmt.Sprintf("%q after %.1f s", p.Fatal, p.WallS)
	case p.Signal != "":
		return "killed by " + p.Signal
	case p.ExitCode != 0 && p.ExitCode != 1: // 1 is a missed gate: the run finished
		return fmt.Sprintf("exit %d", p.ExitCode)
	}
	return ""
}

// run starts s.argv, polls its VmHWM, ends it (SIGTERM, then SIGKILL 10 s
// later) when s.timeout passes, and waits for it.
func run(s spec) (proc, error) {
	argv := s.argv
	if s.limitAS > 0 {
		argv = append([]string{"prlimit", "--as=" + strconv.FormatInt(s.limitAS, 10), "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if s.stderr != "" {
		f, err := os.Create(s.stderr)
		if err != nil {
			return proc{}, err
		}
		defer f.Close()
		cmd.Stderr = io.MultiWriter(f, &stderr)
	}
	if s.stdout != "" {
		f, err := os.Create(s.stdout)
		if err != nil {
			return proc{}, err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return proc{}, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	var (
		mu       sync.Mutex
		hwm      int64
		timedOut bool
		done     = make(chan struct{})
	)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(s.timeout)
		var kill <-chan time.Time
		for {
			if v := readHWM(cmd.Process.Pid); v > 0 {
				mu.Lock()
				hwm = max(hwm, v)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			case <-deadline:
				mu.Lock()
				timedOut = true
				mu.Unlock()
				_ = cmd.Process.Signal(syscall.SIGTERM)
				kill = time.After(10 * time.Second)
			case <-kill:
				_ = cmd.Process.Kill()
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	p := proc{WallS: time.Since(start).Seconds(), ExitCode: cmd.ProcessState.ExitCode(), Stderr: stderr.String()}
	mu.Lock()
	p.HWMKiB, p.TimedOut = hwm, timedOut
	mu.Unlock()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.MaxRSSKiB = ru.Maxrss // KiB on Linux
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		p.Signal = ws.Signal().String()
	}
	if s.stderr != "" {
		p.Fatal = firstFatal(s.stderr)
	}
	low := strings.ToLower(p.Fatal + "\n" + p.Stderr)
	p.LimitHit = strings.Contains(low, "out of memory") || strings.Contains(low, "cannot allocate memory")
	if _, ok := werr.(*exec.ExitError); werr != nil && !ok {
		return p, werr
	}
	return p, nil
}

// firstFatal returns the first line of file name that starts a Go runtime
// fatal error or panic, or "".
func firstFatal(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, prefix := range []string{"fatal error:", "panic:", "runtime: out of memory"} {
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
	}
	return ""
}

// readHWM returns the VmHWM of process pid in KiB, or 0.
func readHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf); n > 4096 {
		t.buf = append(t.buf[:0], t.buf[n-4096:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.buf, nil))
}

// peakKiB is the peak resident memory of the process itself: the kernel's
// VmHWM as last read (at most 20 ms before it exited, so a peak in the very
// last moments can be missed), else ru_maxrss.
func (p proc) peakKiB() int64 {
	if p.HWMKiB > 0 {
		return p.HWMKiB
	}
	return p.MaxRSSKiB
}
