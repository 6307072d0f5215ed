// Command benchrun runs the mcp-fuzz benchmarks that bench/run.sh builds the
// binaries for, and prints one Markdown table: every comparison is a ratio of
// two measurements taken in the same run, never an absolute time checked
// against a constant. See bench/README.md for what each row means.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

type bench struct {
	bin, work, nodeModules string
	limitAS                int64
	timeout, bigTimeout    time.Duration
	reps                   int
	keep                   bool

	perTool int // cases per bench-tools tool, measured by row a
	rows    []row
	details map[string]any
}

// row is one line of the results table.
type row struct {
	ID, What, Result, Target, Status string
}

func main() {
	var b bench
	var only, jsonOut string
	flag.StringVar(&b.bin, "bin", "", "directory holding mcp-fuzz, rawfloor, bench-tools and bench-huge (required)")
	flag.StringVar(&b.work, "work", "", "scratch directory for reports and server data (required)")
	flag.StringVar(&b.nodeModules, "node-modules", "", "e2e/testdata/node_modules, for row g (skipped when absent)")
	flag.StringVar(&only, "rows", "a,b,c,d,e,f,g,r", "rows to run, comma-separated")
	flag.Int64Var(&b.limitAS, "mem", 4*gib, "address-space limit (bytes) for the runs that may blow up (d, f)")
	flag.DurationVar(&b.timeout, "timeout", 180*time.Second, "time limit of one ordinary run")
	flag.DurationVar(&b.bigTimeout, "big-timeout", 300*time.Second, "time limit of one 1,000- or 10,000-tool run")
	flag.IntVar(&b.reps, "reps", 3, "repetitions of the cheap runs (the median is kept)")
	flag.BoolVar(&b.keep, "keep", false, "keep the JSON reports in -work")
	flag.StringVar(&jsonOut, "json", "", "also write every measurement to this JSON file")
	flag.Parse()
	if b.bin == "" || b.work == "" {
		flag.Usage()
		os.Exit(2)
	}
	b.details = map[string]any{}
	want := strings.Split(only, ",")
	steps := []struct {
		id string
		fn func() error
	}{
		{"a", b.rowsAB}, // a and b share their runs
		{"c", b.rowC},
		{"d", b.rowD},
		{"e", b.rowE},
		{"f", b.rowF},
		{"g", b.rowG},
		{"r", b.rowDemo},
	}
	for _, s := range steps {
		if !slices.Contains(want, s.id) && !(s.id == "a" && slices.Contains(want, "b")) {
			continue
		}
		fmt.Fprintf(os.Stderr, "benchrun: row %s ...\n", s.id)
		if err := s.fn(); err != nil {
			b.add(row{ID: s.id, What: "error", Result: err.Error(), Target: "—", Status: "error"})
		}
	}
	b.print()
	if jsonOut != "" {
		data, _ := json.MarshalIndent(b.details, "", "  ")
		if err := os.WriteFile(jsonOut, data, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "benchrun: %v\n", err)
			os.Exit(1)
		}
	}
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	fmt.Fprintf(os.Stderr, "  %s %s: %s [%s]\n", r.ID, r.What, r.Result, r.Status)
}

func (b *bench) print() {
	fmt.Println("| row | what | measured | target | status |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range b.rows {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.ID, r.What, r.Result, r.Target, r.Status)
	}
}

// fuzzRun is one measured mcp-fuzz run and its report.
type fuzzRun struct {
	Proc   proc         `json:"proc"`
	Report *reportFacts `json:"report,omitempty"`
}

// fuzz runs mcp-fuzz with args (the report goes to -o NAME.json) and reads
// its report.
func (b *bench) fuzz(name string, args []string, limit bool, timeout time.Duration) (fuzzRun, error) {
	report := filepath.Join(b.work, name+".json")
	argv := []string{filepath.Join(b.bin, "mcp-fuzz")}
	if args[0] == "demo" { // a subcommand comes before the flags
		argv, args = append(argv, "demo"), args[1:]
	}
	argv = append(append(argv, "-o", report), args...)
	s := spec{argv: argv, timeout: timeout, stderr: filepath.Join(b.work, name+".stderr")}
	if limit {
		s.limitAS = b.limitAS
	}
	p, err := run(s)
	if err != nil {
		return fuzzRun{}, fmt.Errorf("mcp-fuzz %s: %w", name, err)
	}
	fr := fuzzRun{Proc: p}
	if p.failed() == "" {
		facts, err := readReport(report)
		if err != nil {
			return fr, err
		}
		fr.Report = &facts
	}
	if !b.keep {
		os.Remove(report)
	}
	return fr, nil
}

// fuzzReps runs fuzz b.reps times and returns the run of median wall time
// (or the first that failed); mk makes the arguments of repetition i. The
// memory limit applies when limit is set (node, which reserves much address
// space, does not start under it).
func (b *bench) fuzzReps(name string, limit bool, mk func(i int) []string) (fuzzRun, error) {
	var runs []fuzzRun
	for i := range b.reps {
		fr, err := b.fuzz(fmt.Sprintf("%s-%d", name, i), mk(i), limit, b.timeout)
		if err != nil {
			return fuzzRun{}, err
		}
		if f := fr.Proc.failed(); f != "" {
			b.details[name] = []fuzzRun{fr}
			return fr, nil
		}
		runs = append(runs, fr)
	}
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(x, y fuzzRun) int { return cmpF(x.Proc.WallS, y.Proc.WallS) })
	b.details[name] = runs
	return sorted[len(sorted)/2], nil
}

// floorRun is one measured rawfloor run.
type floorRun struct {
	Proc      proc    `json:"proc"`
	Calls     int     `json:"calls"`
	Errors    int     `json:"errors"`
	CallsS    float64 `json:"calls_s"`
	PerCallUs float64 `json:"per_call_us"`
}

// floor runs rawfloor b.reps times (n calls of tool with args against the
// server argv, extra environment env) and returns the median run.
func (b *bench) floor(name string, n int, tool, args string, env []string, argv ...string) (floorRun, error) {
	return b.floorOf(name, []string{"-n", fmt.Sprint(n), "-tool", tool, "-args", args}, env, argv)
}

// floorSame runs rawfloor -same-cases: the calls a default mcp-fuzz run
// makes, payloads included (destructive: with --include-destructive).
func (b *bench) floorSame(name string, destructive bool, env []string, argv ...string) (floorRun, error) {
	flags := []string{"-same-cases"}
	if destructive {
		flags = append(flags, "-include-destructive")
	}
	return b.floorOf("same-"+name, flags, env, argv)
}

func (b *bench) floorOf(name string, flags, env, argv []string) (floorRun, error) {
	var runs []floorRun
	for i := range b.reps {
		out := filepath.Join(b.work, fmt.Sprintf("%s-%d.out", name, i))
		full := append(append(append([]string{filepath.Join(b.bin, "rawfloor")}, flags...), "--"), argv...)
		p, err := run(spec{argv: full, env: env, timeout: b.bigTimeout, stdout: out})
		if err != nil {
			return floorRun{}, err
		}
		if f := p.failed(); f != "" {
			return floorRun{}, fmt.Errorf("rawfloor %s: %s: %s", name, f, lastLine(p.Stderr))
		}
		fr := floorRun{Proc: p}
		data, err := os.ReadFile(out)
		if err != nil {
			return floorRun{}, err
		}
		if err := json.Unmarshal(data, &fr); err != nil {
			return floorRun{}, fmt.Errorf("rawfloor %s output %q: %w", name, data, err)
		}
		runs = append(runs, fr)
	}
	b.details["floor-"+name] = runs
	slices.SortFunc(runs, func(x, y floorRun) int { return cmpF(x.Proc.WallS, y.Proc.WallS) })
	return runs[len(runs)/2], nil
}

func (b *bench) tools(n int, extra ...string) []string {
	return append([]string{filepath.Join(b.bin, "bench-tools"), "-tools", fmt.Sprint(n)}, extra...)
}

// rowsAB: a, per-call cost as the slope between a 10-tool and a ~1,000-case
// run, against the floor's per-call time; b, the whole ~1,000-case run
// against the floor's whole run; and the 1,000-case report size.
func (b *bench) rowsAB() error {
	small, err := b.fuzzReps("tools-10", true, func(int) []string { return append([]string{"--"}, b.tools(10)...) })
	if err != nil {
		return err
	}
	if f := small.Proc.failed(); f != "" {
		return fmt.Errorf("10-tool run: %s: %s", f, lastLine(small.Proc.Stderr))
	}
	b.perTool = max(1, small.Report.Cases/10)
	nTools := max(1, int(math.Round(1000/float64(b.perTool))))
	big, err := b.fuzzReps(fmt.Sprintf("tools-%d", nTools), true, func(int) []string { return append([]string{"--"}, b.tools(nTools)...) })
	if err != nil {
		return err
	}
	what := fmt.Sprintf("bench-tools, %d tools", nTools)
	if f := big.Proc.failed(); f != "" {
		b.add(row{"a", "per-call overhead", f, "—", "—"})
		b.add(row{"b", "full run vs floor, " + what, f, "—", "—"})
		return nil
	}
	n := big.Report.Cases
	fl, err := b.floor(fmt.Sprintf("tools-%d", nTools), n, "tool_00001", `{"q":"x"}`, nil, b.tools(nTools)...)
	if err != nil {
		return err
	}
	slope := (big.Proc.WallS - small.Proc.WallS) / float64(n-small.Report.Cases) * 1e6
	b.add(row{"a", "per-call overhead (slope 10 → " + fmt.Sprint(nTools) + " tools)",
		fmt.Sprintf("mcp-fuzz %s/call vs floor %s/call: **%.1f×**", us(slope), us(fl.PerCallUs), slope/fl.PerCallUs), "—", "—"})
	b.add(row{"b", "full run vs floor, " + what,
		fmt.Sprintf("mcp-fuzz %s vs floor %s for %d calls: **%.1f×**; peak RSS %s", secs(big.Proc.WallS), secs(fl.Proc.WallS), n,
			big.Proc.WallS/fl.Proc.WallS, size(big.Proc.peakKiB()*kib)), "—", "—"})
	b.addReportSize("report size, ~1,000 cases", big, 1000, 2*mib)
	return nil
}

// addReportSize checks a report's size against limit for per cases,
// scaled when the run had another number of cases.
func (b *bench) addReportSize(what string, fr fuzzRun, per int, limit int64) {
	target := fmt.Sprintf("≤ %s per %d cases", size(limit), per)
	if fr.Report == nil {
		b.add(row{"r", what, "no report: " + fr.Proc.failed(), target, metIf(false)})
		return
	}
	r := fr.Report
	scaled := float64(r.Bytes) * float64(per) / float64(max(1, r.Cases))
	res := fmt.Sprintf("%s for %d cases", size(r.Bytes), r.Cases)
	if r.Cases != per {
		res += fmt.Sprintf(" (%s per %d)", size(int64(scaled)), per)
	}
	b.add(row{"r", what, res, target, metIf(scaled <= float64(limit))})
}

// rowC compares a server whose every call answers -32603 with its isError
// twin: wall ratio and server spawns.
func (b *bench) rowC() error {
	var internal, iserror []float64
	spawns := map[string]int{}
	for i := range b.reps {
		for _, mode := range []string{"internal", "iserror"} {
			log := filepath.Join(b.work, fmt.Sprintf("spawn-%s-%d.log", mode, i))
			fr, err := b.fuzz(fmt.Sprintf("c-%s-%d", mode, i), append([]string{"--"}, b.tools(10, "-answer", mode, "-spawn-log", log)...), true, b.timeout)
			if err != nil {
				return err
			}
			if f := fr.Proc.failed(); f != "" {
				b.add(row{"c", "-32603 vs isError twin (10 tools)", mode + ": " + f, "1 spawn, ≤ 1.2×", metIf(false)})
				return nil
			}
			n := countLines(log)
			spawns[mode] = max(spawns[mode], n)
			if mode == "internal" {
				internal = append(internal, fr.Proc.WallS)
			} else {
				iserror = append(iserror, fr.Proc.WallS)
			}
		}
	}
	mi, me := median(internal), median(iserror)
	b.details["c"] = map[string]any{"internal_wall_s": internal, "iserror_wall_s": iserror, "spawns": spawns}
	b.add(row{"c", "-32603 vs isError twin (10 tools)",
		fmt.Sprintf("-32603 %s, spawns: %d; isError %s, spawns: %d: **%.2f×**", secs(mi), spawns["internal"], secs(me), spawns["iserror"], mi/me),
		"1 spawn, ≤ 1.2×", metIf(spawns["internal"] == 1 && mi/me <= 1.2)})
	return nil
}

// rowD runs 1,000 and 10,000 tools under the memory limit.
func (b *bench) rowD() error {
	if b.perTool == 0 {
		b.perTool = 10 // row a did not run: assume the 10 cases per tool measured on 2026-12-01
	}
	for _, n := range []int{1000, 10000} {
		fr, err := b.fuzz(fmt.Sprintf("d-tools-%d", n), append([]string{"--"}, b.tools(n)...), true, b.bigTimeout)
		if err != nil {
			return err
		}
		b.details[fmt.Sprintf("d-tools-%d", n)] = fr
		calls, note := n*b.perTool, " (expected)"
		if fr.Report != nil {
			calls, note = fr.Report.Cases, ""
		}
		fl, err := b.floor(fmt.Sprintf("d-tools-%d", n), calls, "tool_00001", `{"q":"x"}`, nil, b.tools(n)...)
		if err != nil {
			return err
		}
		same, err := b.floorSame(fmt.Sprintf("d-tools-%d", n), false, nil, b.tools(n)...)
		if err != nil {
			return err
		}
		rss := fr.Proc.peakKiB() * kib
		floorPart := fmt.Sprintf("trivial-call floor %s for %d calls%s: %.1f×; same-calls floor %s for %d calls",
			secs(fl.Proc.WallS), calls, note, fr.Proc.WallS/fl.Proc.WallS, secs(same.Proc.WallS), same.Calls)
		var res string
		if f := fr.Proc.failed(); f != "" {
			res = fmt.Sprintf("**%s** (limit %s), peak RSS %s; %s", f, size(b.limitAS), size(rss), floorPart)
		} else {
			res = fmt.Sprintf("wall %s, peak RSS %s, report %s, %d cases; %s: **%.1f×**",
				secs(fr.Proc.WallS), size(rss), size(fr.Report.Bytes), fr.Report.Cases, floorPart, fr.Proc.WallS/same.Proc.WallS)
		}
		ok := fr.Proc.failed() == ""
		if n == 1000 {
			b.add(row{"d", "1,000 tools", res, "RSS ≤ 256 MiB, wall ≤ 3× same-calls floor",
				metIf(ok && rss <= 256*mib && fr.Proc.WallS <= 3*same.Proc.WallS)})
			b.addReportSize("report size, 1,000 tools", fr, 18000, 30*mib)
		} else {
			b.add(row{"d", "10,000 tools", res, "completes, RSS ≤ 1 GiB", metIf(ok && rss <= gib)})
		}
	}
	return nil
}

// rowE compares --parallel 1 with --parallel 4, when mcp-fuzz has the flag.
func (b *bench) rowE() error {
	out := filepath.Join(b.work, "help.out")
	hp, err := run(spec{argv: []string{filepath.Join(b.bin, "mcp-fuzz"), "--help"}, timeout: 10 * time.Second, stdout: out})
	if err != nil {
		return err
	}
	text, _ := os.ReadFile(out)
	if !strings.Contains(string(text)+hp.Stderr, "--parallel") {
		b.add(row{"e", "--parallel 1 vs 4", "skipped: mcp-fuzz --help does not list --parallel", "—", "skipped"})
		return nil
	}
	nTools := 100
	if b.perTool > 0 {
		nTools = max(1, int(math.Round(1000/float64(b.perTool))))
	}
	walls := map[int]float64{}
	for _, par := range []int{1, 4} {
		fr, err := b.fuzzReps(fmt.Sprintf("parallel-%d", par), true, func(int) []string {
			return append([]string{"--parallel", fmt.Sprint(par), "--"}, b.tools(nTools)...)
		})
		if err != nil {
			return err
		}
		if f := fr.Proc.failed(); f != "" {
			b.add(row{"e", "--parallel 1 vs 4", fmt.Sprintf("--parallel %d: %s", par, f), "—", "—"})
			return nil
		}
		walls[par] = fr.Proc.WallS
	}
	b.add(row{"e", fmt.Sprintf("--parallel 1 vs 4 (%d tools, %d cores)", nTools, numCPU()),
		fmt.Sprintf("%s vs %s: **%.2f×** the time", secs(walls[1]), secs(walls[4]), walls[4]/walls[1]), "—", "—"})
	return nil
}

// rowF: one 200 MiB answer over stdio.
func (b *bench) rowF() error {
	const callTimeout = 10
	fr, err := b.fuzz("huge", []string{"--timeout", fmt.Sprint(callTimeout), "--", filepath.Join(b.bin, "bench-huge"), "-mb", "200"}, true, b.timeout)
	if err != nil {
		return err
	}
	b.details["huge"] = fr
	rss := fr.Proc.peakKiB() * kib
	target := fmt.Sprintf("RSS ≤ 256 MiB, case ≤ --timeout %d s", callTimeout)
	if f := fr.Proc.failed(); f != "" {
		b.add(row{"f", "one 200 MiB answer", fmt.Sprintf("**%s** (limit %s), peak RSS %s", f, size(b.limitAS), size(rss)), target, metIf(false)})
		return nil
	}
	r := fr.Report
	b.add(row{"f", "one 200 MiB answer",
		fmt.Sprintf("wall %s, peak RSS %s; slowest case %s: %s in %s", secs(fr.Proc.WallS), size(rss), r.SlowestCase, r.SlowestVerd, secs(r.SlowestMs/1000)),
		target, metIf(rss <= 256*mib && r.SlowestMs <= callTimeout*1000)})
	return nil
}

// rowG runs the npm reference servers, when they are installed.
func (b *bench) rowG() error {
	entry := func(pkg string) string {
		return filepath.Join(b.nodeModules, "@modelcontextprotocol", pkg, "dist", "index.js")
	}
	if _, err := os.Stat(entry("server-memory")); b.nodeModules == "" || err != nil {
		b.add(row{"g", "server-filesystem, server-memory", "skipped: e2e/testdata/node_modules absent (run e2e/setup.sh)", "—", "skipped"})
		return nil
	}
	// server-filesystem, default (read-only tools only), confined to a
	// fresh directory.
	root := filepath.Join(b.work, "fs-root")
	for name, content := range map[string]string{"hello.txt": "hello, world\n", "notes.md": "# Notes\n\n- one\n", "sub/nested.txt": "nested\n"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	fsArgv := []string{"node", entry("server-filesystem"), root}
	if err := b.nodeRow("server-filesystem (default run)", "fs", func(int) []string { return append([]string{"--"}, fsArgv...) },
		"list_allowed_directories", nil, fsArgv); err != nil {
		return err
	}
	// server-memory with every tool, its graph in a fresh file per run.
	memArgv := []string{"node", entry("server-memory")}
	mk := func(i int) []string {
		file := filepath.Join(b.work, fmt.Sprintf("memory-fuzz-%d.jsonl", i))
		return append([]string{"--include-destructive", "--env", "MEMORY_FILE_PATH=" + file, "--"}, memArgv...)
	}
	return b.nodeRow("server-memory --include-destructive", "memory", mk,
		"read_graph", []string{"MEMORY_FILE_PATH=" + filepath.Join(b.work, "memory-floor.jsonl")}, memArgv)
}

func (b *bench) nodeRow(what, name string, mk func(int) []string, tool string, env, argv []string) error {
	fr, err := b.fuzzReps(name, false, mk)
	if err != nil {
		return err
	}
	if f := fr.Proc.failed(); f != "" {
		b.add(row{"g", what, f + ": " + lastLine(fr.Proc.Stderr), "wall ≤ 3× floor", metIf(false)})
		return nil
	}
	n := fr.Report.Cases
	fl, err := b.floor(name, n, tool, "{}", env, argv...)
	if err != nil {
		return err
	}
	same, err := b.floorSame(name, strings.Contains(what, "--include-destructive"), env, argv...)
	if err != nil {
		return err
	}
	ratio := fr.Proc.WallS / same.Proc.WallS
	b.add(row{"g", what, fmt.Sprintf("mcp-fuzz %s; trivial-call floor %s for %d calls: %.1f×; same-calls floor %s for %d calls: **%.1f×**",
		secs(fr.Proc.WallS), secs(fl.Proc.WallS), n, fr.Proc.WallS/fl.Proc.WallS, secs(same.Proc.WallS), same.Calls, ratio),
		"wall ≤ 3× same-calls floor", metIf(ratio <= 3)})
	return nil
}

// rowDemo measures the demo's report size.
func (b *bench) rowDemo() error {
	fr, err := b.fuzz("demo", []string{"demo"}, true, b.timeout)
	if err != nil {
		return err
	}
	b.details["demo"] = fr
	if f := fr.Proc.failed(); f != "" {
		b.add(row{"r", "report size, demo", f, "≤ 512 KiB", metIf(false)})
		return nil
	}
	b.add(row{"r", "report size, demo", fmt.Sprintf("%s for %d cases (run took %s)", size(fr.Report.Bytes), fr.Report.Cases, secs(fr.Proc.WallS)),
		"≤ 512 KiB", metIf(fr.Report.Bytes <= 512*kib)})
	return nil
}
