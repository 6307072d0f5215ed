package hostile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// canary is the secret every run is given: --env API_TOKEN for a stdio
// server, --bearer and an X-Api-Key header for an HTTP one. The fixtures echo
// it back; it must appear in no artefact. canaryRandom is its random part:
// what a truncated or half-redacted copy would still show.
const (
	canary       = "mcpfuzz-canary-" + canaryRandom
	canaryRandom = "7f3a9c1e5b"
)

// needles are the strings no artefact may contain.
var needles = []string{canary, canaryRandom, "canary-" + canaryRandom[:4]}

// outputs are the files every run writes, one per format.
var outputs = []string{"r.json", "r.md", "r.sarif", "r.xml", "r.jsonl", "r.svg"}

// binaries builds mcp-fuzz and the Action once per test process, beside the
// fixtures: in the directory fixture.Main removes when the tests end.
func binaries(t *testing.T) (cli, action string) {
	t.Helper()
	return fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz"), fixture.Program(t, "./cmd/action", "mcp-fuzz-action")
}

// opts say what one mcp-fuzz run is pointed at and how it is watched.
type opts struct {
	server   []string // a stdio server: the command after --
	url      string   // or an HTTP endpoint
	env      []string // more --env K=V for a stdio server
	noCanary bool     // do not give a stdio server the canary
	// bound is how long the run may take before it counts as hung and is
	// killed (default 90 s): a "did not hang" bound, not a speed claim.
	bound      time.Duration
	extraFiles []*os.File    // descriptors mcp-fuzz inherits from 3 on
	interrupt  time.Duration // send SIGINT this long after the start (0: never)
	// ownEnv are more variables in mcp-fuzz's own environment (not the
	// server's): secrets a server must not be able to read.
	ownEnv []string
	// killWhen, polled while mcp-fuzz runs, says when to kill it with
	// SIGKILL (no chance to stop its servers).
	killWhen func(r *result) bool
}

// result is one finished mcp-fuzz run.
type result struct {
	args           []string
	code           int // exit code; -1 when killed by a signal
	stdout, stderr string
	wall           time.Duration
	afterInterrupt time.Duration // from SIGINT to exit
	dir            string        // working directory of mcp-fuzz: the -o files
	piddir         string        // where the servers record their PIDs (PIDDIR)
	// peakRSS is mcp-fuzz's own peak resident set (VmHWM), as last read
	// while it ran, bytes; 0 when never read. (ru_maxrss is no use: Linux
	// starts a child's at its parent's peak.)
	peakRSS int64
	ended   float64 // system uptime when the run ended, seconds
}

// run runs mcp-fuzz with flags against the target of o, writing every output
// format, and waits for it to end (killing it, and failing the test, after
// o.bound). A stdio server gets the canary as API_TOKEN and PIDDIR; an HTTP
// one gets the canary as bearer token and X-Api-Key header. Processes left
// over are killed when the test ends.
func run(t *testing.T, o opts, flags ...string) *result {
	t.Helper()
	cli, _ := binaries(t)
	r := &result{dir: t.TempDir(), piddir: t.TempDir()}
	t.Cleanup(func() { killLeft(r) })
	args := slices.Clone(flags)
	for _, f := range outputs {
		args = append(args, "-o", f)
	}
	if o.url != "" {
		args = append(args, "--url", o.url, "--bearer", canary, "--header", "X-Api-Key: "+canary)
	} else {
		if !o.noCanary {
			args = append(args, "--env", "API_TOKEN="+canary)
		}
		args = append(args, "--env", "PIDDIR="+r.piddir)
		for _, e := range o.env {
			args = append(args, "--env", e)
		}
		args = append(append(args, "--"), o.server...)
	}
	r.args = args
	if o.bound == 0 {
		o.bound = 90 * time.Second
	}

	cmd := exec.Command(cli, args...)
	cmd.Dir = r.dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "NO_COLOR=1"}, o.ownEnv...)
	cmd.ExtraFiles = o.extraFiles
	// Files, not pipes: nothing mcp-fuzz leaks to its children can keep the
	// test waiting for end of file.
	stdout, stderr := tempFile(t), tempFile(t)
	cmd.Stdout, cmd.Stderr = stdout, stderr

	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting mcp-fuzz: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var sigint <-chan time.Time
	if o.interrupt > 0 {
		sigint = time.After(o.interrupt)
	}
	var interrupted time.Time
	bound := time.After(o.bound)
	memory := time.NewTicker(50 * time.Millisecond)
	defer memory.Stop()
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-memory.C:
			if hwm := vmHWM(cmd.Process.Pid); hwm > 0 {
				r.peakRSS = hwm
			}
			if o.killWhen != nil && o.killWhen(r) {
				_ = cmd.Process.Kill()
				o.killWhen = nil
			}
		case <-sigint:
			interrupted = time.Now()
			_ = cmd.Process.Signal(os.Interrupt)
		case <-bound:
			t.Errorf("mcp-fuzz still running after %v: killing it (PID %d)", o.bound, cmd.Process.Pid)
			_ = cmd.Process.Kill()
		}
	}
	r.wall = time.Since(start)
	if !interrupted.IsZero() {
		r.afterInterrupt = time.Since(interrupted)
	}
	r.ended = uptime()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("waiting for mcp-fuzz: %v", err)
	}
	r.code = cmd.ProcessState.ExitCode()
	r.stdout, r.stderr = readAll(t, stdout), readAll(t, stderr)
	t.Logf("mcp-fuzz exit %d after %v (peak RSS %d MiB)", r.code, r.wall.Round(time.Millisecond), r.peakRSS>>20)
	return r
}

// vmHWM returns the peak resident set of a running process, in bytes, or 0.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func tempFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readAll(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// report reads the run's JSON report.
func (r *result) report(t *testing.T) *report.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "r.json"))
	if err != nil {
		t.Fatalf("no JSON report (exit %d): %v\nstderr:\n%s", r.code, err, tail(r.stderr))
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("r.json is not a report: %v", err)
	}
	return &rep
}

// ranToTheEnd checks that the run produced its report: exit 0 (every gate
// passed) or 1 (a gate missed; which gates apply by default is the CLI's
// business, not this suite's), and every output file.
func (r *result) ranToTheEnd(t *testing.T) *report.Report {
	t.Helper()
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d, want 0 or 1 (a report)\nstdout:\n%s\nstderr:\n%s", r.code, tail(r.stdout), tail(r.stderr))
	}
	for _, f := range outputs {
		if fi, err := os.Stat(filepath.Join(r.dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	rep := r.report(t)
	logVerdicts(t, rep)
	return rep
}

// tail returns the last 4 KiB of s.
func tail(s string) string {
	if len(s) > 4096 {
		return "…" + s[len(s)-4096:]
	}
	return s
}

// assertNoCanary checks that no file under dir, nor any of texts (by name),
// contains the canary or a recognisable piece of it.
func assertNoCanary(t *testing.T, dir string, texts map[string]string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		checkCanary(t, rel, string(b))
		return nil
	})
	if err != nil {
		t.Errorf("reading the artefacts: %v", err)
	}
	for name, text := range texts {
		checkCanary(t, name, text)
	}
}

func checkCanary(t *testing.T, name, text string) {
	t.Helper()
	for _, n := range needles {
		if i := strings.Index(text, n); i >= 0 {
			lo, hi := max(0, i-80), min(len(text), i+len(n)+40)
			t.Errorf("the canary leaked into %s (%d times %q): …%q…", name, strings.Count(text, n), n, text[lo:hi])
			return
		}
	}
}

// assertNoCanary checks the run's files, stdout and stderr.
func (r *result) assertNoCanary(t *testing.T) {
	t.Helper()
	assertNoCanary(t, r.dir, map[string]string{"stdout": r.stdout, "stderr": r.stderr})
}

// proc is one process from /proc.
type proc struct {
	pid, ppid, pgrp, sid int
	state                byte
	start                float64 // seconds after boot
	cmdline              string
	why                  string // why it counts as the run's
}

// exitGrace is how long a process may take to die after mcp-fuzz exited:
// the kernel tears a killed process down asynchronously.
const exitGrace = 2 * time.Second

// assertNoProcessLeft checks that nothing the run started is still running:
// no process that recorded its PID in the run's PIDDIR, that carries the
// run's PIDDIR in its environment, or that is in the process group or
// session of one that recorded its PID. Zombies count as dead. Survivors are
// reported and killed.
func assertNoProcessLeft(t *testing.T, r *result) {
	t.Helper()
	left := survivors(r)
	for deadline := time.Now().Add(exitGrace); len(left) > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		left = survivors(r)
	}
	for _, p := range left {
		t.Errorf("process %d outlived mcp-fuzz (%s): state %c, parent %d, group %d, session %d: %s",
			p.pid, p.why, p.state, p.ppid, p.pgrp, p.sid, p.cmdline)
	}
	killLeft(r)
}

// killLeft kills, by PID, whatever the run left running.
func killLeft(r *result) {
	for _, p := range survivors(r) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// survivors lists the run's processes that are still alive.
func survivors(r *result) []proc {
	recorded := map[int]bool{}
	for _, pid := range pidFiles(r.piddir) {
		recorded[pid] = true
	}
	marker := []byte("PIDDIR=" + r.piddir + "\x00")
	var left []proc
	for _, p := range processes() {
		if p.state == 'Z' || p.state == 'X' {
			continue
		}
		before := r.ended == 0 || p.start <= r.ended+0.5 // not a later process that got a reused PID
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.pid))
		switch {
		case bytes.Contains(env, marker):
			p.why = "PIDDIR in its environment"
		case recorded[p.pid] && before:
			p.why = "its PID was recorded"
		case recorded[p.pgrp] && before:
			p.why = fmt.Sprintf("in the process group of recorded PID %d", p.pgrp)
		case recorded[p.sid] && before:
			p.why = fmt.Sprintf("in the session of recorded PID %d", p.sid)
		default:
			continue
		}
		left = append(left, p)
	}
	return left
}

// pidFiles returns the PIDs recorded in dir, by file name without .pid.
func pidFiles(dir string) map[string]int {
	out := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			out[strings.TrimSuffix(filepath.Base(f), ".pid")] = pid
		}
	}
	return out
}

// processes reads every process from /proc.
func processes() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		p, ok := parseStat(pid, data)
		if !ok {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		p.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		out = append(out, p)
	}
	return out
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// parseStat reads "pid (comm) state ppid pgrp session ... starttime ...".
func parseStat(pid int, data []byte) (proc, bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0][0]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgrp, _ = strconv.Atoi(f[2])
	p.sid, _ = strconv.Atoi(f[3])
	ticks, _ := strconv.ParseFloat(f[19], 64)
	p.start = ticks / clockTicks
	return p, true
}

// uptime returns the seconds since boot.
func uptime() float64 {
	b, _ := os.ReadFile("/proc/uptime")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// cases returns every case of the report.
func cases(rep *report.Report) []report.Case {
	var out []report.Case
	for _, tl := range rep.Tools {
		out = append(out, tl.Cases...)
	}
	return out
}

// caseByID returns the case with the given id.
func caseByID(t *testing.T, rep *report.Report, id string) report.Case {
	t.Helper()
	for _, c := range cases(rep) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no case %s in the report", id)
	return report.Case{}
}

// logVerdicts logs how many cases got each verdict and flag, and checks
// that every case has one of the catalogue's verdicts.
func logVerdicts(t *testing.T, rep *report.Report) {
	t.Helper()
	verdicts, flags := map[report.Verdict]int{}, map[string]int{}
	for _, c := range cases(rep) {
		verdicts[c.Verdict]++
		for _, f := range c.Flags {
			flags[f]++
		}
		if !knownVerdicts[c.Verdict] {
			t.Errorf("case %s: verdict %q is not in the catalogue", c.ID, c.Verdict)
		}
	}
	t.Logf("verdicts %v, flags %v, grade %s, ended early %q", verdicts, flags, strOf(rep.Grade), rep.EndedEarly)
}

var knownVerdicts = map[report.Verdict]bool{
	report.Handled: true, report.Rejected: true, report.Accepted: true, report.Tolerated: true,
	report.Crash: true, report.Hang: true, report.ProtocolViolation: true,
	report.OK: true, report.EmptySuccess: true, report.OutputViolation: true, report.Errored: true,
	report.GeneratorGap: true, report.NotRun: true,
}

func strOf(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

func hasFlag(c report.Case, flag string) bool { return slices.Contains(c.Flags, flag) }
