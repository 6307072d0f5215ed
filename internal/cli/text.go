package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// progress prints one line when a tool starts and one when it is done.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	counts map[report.Verdict]int
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) event(e engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case "skip":
		fmt.Fprintf(p.w, "- %s: skipped (%s)\n", safe(e.Tool, 80), e.Reason)
	case "tool":
		p.counts = map[report.Verdict]int{}
		fmt.Fprintf(p.w, "> %s: %d cases\n", safe(e.Tool, 80), e.Total)
	case "case":
		p.counts[e.Case.Verdict]++
		if e.Case.Verdict.Failure() {
			fmt.Fprintf(p.w, "  ! %s: %s\n", safe(e.Case.ID, 120), e.Case.Verdict)
		}
	}
}

// verdictOrder is the order verdicts are listed in, worst first.
var verdictOrder = []report.Verdict{
	report.Crash, report.Hang, report.ProtocolViolation, report.Accepted, report.OutputViolation,
	report.Errored, report.EmptySuccess, report.GeneratorGap, report.NotRun,
	report.Tolerated, report.Rejected, report.Handled, report.OK,
}

// writeText prints the human-readable report.
func writeText(w io.Writer, rep *report.Report, colour bool) {
	paint := func(v report.Verdict) string { return fmt.Sprintf("%-18s", v) }
	if colour {
		paint = func(v report.Verdict) string { return verdictColour(v) + fmt.Sprintf("%-18s", v) + ansiReset }
	}
	fmt.Fprintf(w, "\nmcp-fuzz %s  seed %d\n", rep.Version, rep.Seed)
	fmt.Fprintf(w, "server  %s %s (protocol %s, %s)\n", safe(rep.Server.Name, 60), safe(rep.Server.Version, 30), safe(rep.Server.ProtocolVersion, 20), rep.Target.Transport)
	fmt.Fprintf(w, "tools   %d listed, %d tested, %d skipped\n", rep.Discovery.Tools, rep.Summary.ToolsTested, rep.Summary.ToolsSkipped)
	for _, n := range rep.Discovery.Notes {
		fmt.Fprintf(w, "note    %s\n", safe(n, 200))
	}

	for _, t := range rep.Tools {
		if !t.Tested {
			continue
		}
		fmt.Fprintf(w, "\n%s  (%s)\n", safe(t.Name, 80), countLine(t.Cases))
		for _, c := range t.Cases {
			fmt.Fprintf(w, "  %s %-52s %7.1fms", paint(c.Verdict), safe(c.ID, 52), c.DurationMs)
			if len(c.Flags) > 0 {
				fmt.Fprintf(w, "  [%s]", strings.Join(c.Flags, ","))
			}
			if c.Detail != "" && c.Verdict != report.OK && c.Verdict != report.Handled {
				fmt.Fprintf(w, "  %s", safe(c.Detail, 140))
			}
			fmt.Fprintln(w)
		}
	}
	skipped := false
	for _, t := range rep.Tools {
		if t.Tested {
			continue
		}
		if !skipped {
			fmt.Fprintln(w, "\nnot called:")
			skipped = true
		}
		fmt.Fprintf(w, "  %s: %s\n", safe(t.Name, 80), t.SkipReason)
	}
	if len(rep.Lint) > 0 {
		fmt.Fprintf(w, "\nmetadata problems (%d):\n", len(rep.Lint))
		for _, l := range rep.Lint {
			loc := l.Tool
			if l.Pointer != "" {
				loc += " " + l.Pointer
			}
			fmt.Fprintf(w, "  %-7s %-26s %s: %s\n", l.Severity, l.Code, safe(loc, 80), safe(l.Message, 160))
		}
	}
	writeFindings(w, rep.Findings)
	fmt.Fprintf(w, "\nsummary: %d cases: %s\n", rep.Summary.Cases, countLine(allCases(rep)))
	if rep.Summary.Unconfirmed > 0 {
		fmt.Fprintf(w, "         %d rejections on tools whose valid call failed (unconfirmed: they prove no validation)\n", rep.Summary.Unconfirmed)
	}
	if rep.EndedEarly != "" {
		fmt.Fprintf(w, "ENDED EARLY: %s\n", rep.EndedEarly)
	}
	writeScore(w, rep)
}

// dimensionOrder is the order dimensions are printed in.
var dimensionOrder = []string{"robustness", "validation", "errorQuality", "liveness", "performance", "schema"}

// writeScore prints the score, the dimensions with their arithmetic, the caps
// and the critical callout.
func writeScore(w io.Writer, rep *report.Report) {
	if !rep.Graded || rep.Score == nil || rep.Grade == nil {
		fmt.Fprintln(w, "\nNOT GRADED: no case was run (nothing was called)")
		return
	}
	fmt.Fprintf(w, "\nscore %d, grade %s\n", *rep.Score, *rep.Grade)
	for _, d := range dimensionOrder {
		dim, ok := rep.Dimensions[d]
		if !ok {
			continue
		}
		val := "not measured"
		if dim.Score != nil {
			val = fmt.Sprint(*dim.Score)
		}
		fmt.Fprintf(w, "  %-13s %-13s %s\n", d, val, dim.Reason)
	}
	for _, c := range rep.Caps {
		fmt.Fprintf(w, "  cap: grade at most %s: %s\n", c.Grade, c.Reason)
	}
	if len(rep.Critical) > 0 {
		fmt.Fprintf(w, "CRITICAL: %s\n", strings.Join(rep.Critical, "; "))
	}
}

func allCases(rep *report.Report) []report.Case {
	var all []report.Case
	for _, t := range rep.Tools {
		all = append(all, t.Cases...)
	}
	return all
}

// countLine renders "3 handled, 1 crash" in verdictOrder.
func countLine(cases []report.Case) string {
	counts := map[report.Verdict]int{}
	for _, c := range cases {
		counts[c.Verdict]++
	}
	var parts []string
	for _, v := range verdictOrder {
		if n := counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
			delete(counts, v)
		}
	}
	var rest []string
	for v, n := range counts {
		rest = append(rest, fmt.Sprintf("%d %s", n, v))
	}
	sort.Strings(rest)
	parts = append(parts, rest...)
	if len(parts) == 0 {
		return "no cases"
	}
	return strings.Join(parts, ", ")
}

// safe makes server-provided text fit for a terminal: control characters and
// escape sequences removed, one line, at most n runes.
func safe(s string, n int) string {
	var b strings.Builder
	count := 0
	for _, r := range s {
		if count == n {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			continue
		default:
			b.WriteRune(r)
		}
		count++
	}
	return b.String()
}

// maxFindingsShown bounds the findings printed to the terminal; the JSON
// report has them all.
const maxFindingsShown = 30

// writeFindings prints findings grouped by tool, each with its tools/call
// line; the full shell reproducer is printed once per tool and code.
func writeFindings(w io.Writer, findings []report.Finding) {
	if len(findings) == 0 {
		return
	}
	fmt.Fprintf(w, "\nfindings (%d), by tool, worst first:\n", len(findings))
	var order []string
	byTool := map[string][]report.Finding{}
	for _, f := range findings {
		if _, ok := byTool[f.Tool]; !ok {
			order = append(order, f.Tool)
		}
		byTool[f.Tool] = append(byTool[f.Tool], f)
	}
	shown := 0
	for _, tool := range order {
		fmt.Fprintf(w, "  %s\n", safe(tool, 80))
		shellShown := map[string]bool{}
		for _, f := range byTool[tool] {
			if shown == maxFindingsShown {
				fmt.Fprintf(w, "  … %d more in the JSON report (--json or -o report.json)\n", len(findings)-shown)
				return
			}
			shown++
			fmt.Fprintf(w, "    [%s] %s: %s\n", f.Severity, safe(f.CaseID, 80), safe(f.Message, 200))
			if f.Reproducer.JSONRPC != "" {
				fmt.Fprintf(w, "      call: %s\n", safe(f.Reproducer.JSONRPC, 300))
			}
			if f.Reproducer.Shell != "" && !shellShown[f.Code] && len(f.Reproducer.Shell) < 4096 {
				shellShown[f.Code] = true
				fmt.Fprintf(w, "      reproduce: %s\n", safe(f.Reproducer.Shell, 4096))
			}
		}
	}
}

const ansiReset = "\x1b[0m"

// verdictColour is red for failures, yellow for doubtful outcomes and green
// for good ones.
func verdictColour(v report.Verdict) string {
	switch {
	case v.Failure():
		return "\x1b[1;31m"
	case v == report.Accepted || v == report.OutputViolation:
		return "\x1b[31m"
	case v == report.Errored || v == report.EmptySuccess || v == report.GeneratorGap || v == report.NotRun || v == report.Tolerated:
		return "\x1b[33m"
	}
	return "\x1b[32m"
}

// useColour reports whether w is a terminal and colour is not turned off:
// NO_COLOR (https://no-color.org) set and not empty, or a CI environment.
func useColour(w io.Writer, lookup func(string) (string, bool)) bool {
	if v, _ := lookup("NO_COLOR"); v != "" {
		return false
	}
	if _, ci := lookup("CI"); ci {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
