package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// progress prints a line when a tool starts or is skipped, and one per
// failing case.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) event(e engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case engine.EventSkip:
		fmt.Fprintf(p.w, "- %s: skipped (%s)\n", escape.Terminal(e.Tool, 80), e.Reason)
	case engine.EventTool:
		fmt.Fprintf(p.w, "> %s: %s\n", escape.Terminal(e.Tool, 80), plural(e.Total, "case", "cases"))
	case engine.EventCutoff:
		fmt.Fprintf(p.w, "  ! %s: %s\n", escape.Terminal(e.Tool, 80), e.Reason)
	case engine.EventCase:
		if e.Case.Verdict.Failure() {
			fmt.Fprintf(p.w, "  ! %s: %s\n", escape.Terminal(e.Case.ID, 120), e.Case.Verdict)
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
	fmt.Fprintf(w, "server  %s %s (protocol %s, %s)\n", escape.Terminal(rep.Server.Name, 60), escape.Terminal(rep.Server.Version, 30), escape.Terminal(rep.Server.ProtocolVersion, 20), rep.Target.Transport)
	fmt.Fprintf(w, "tools   %d listed, %d tested, %d skipped\n", rep.Discovery.Tools, rep.Summary.ToolsTested, rep.Summary.ToolsSkipped)
	for _, n := range rep.Discovery.Notes {
		fmt.Fprintf(w, "note    %s\n", escape.Terminal(n, 200))
	}

	for _, t := range rep.Tools {
		if !t.Tested {
			continue
		}
		fmt.Fprintf(w, "\n%s  (%s)\n", escape.Terminal(t.Name, 80), countLine(t.Cases))
		for _, c := range t.Cases {
			fmt.Fprintf(w, "  %s %-52s %7.1fms", paint(c.Verdict), escape.Terminal(c.ID, 52), c.DurationMs)
			if len(c.Flags) > 0 {
				fmt.Fprintf(w, "  [%s]", strings.Join(c.Flags, ","))
			}
			if c.Detail != "" && c.Verdict != report.OK && c.Verdict != report.Handled {
				fmt.Fprintf(w, "  %s", escape.Terminal(c.Detail, 140))
			}
			fmt.Fprintln(w)
		}
	}
	if len(rep.Lint) > 0 {
		fmt.Fprintf(w, "\nmetadata problems (%d):\n", len(rep.Lint))
		for _, l := range rep.Lint {
			loc := l.Tool
			if l.Pointer != "" {
				loc += " " + l.Pointer
			}
			fmt.Fprintf(w, "  %-7s %-26s %s: %s\n", l.Severity, l.Code, escape.Terminal(loc, 80), escape.Terminal(l.Message, 160))
		}
	}
	// Score, dimensions, caps, critical callout, findings, tools not called.
	fmt.Fprintf(w, "\n%s", render.Terminal(rep, colour))
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

// plural says "1 case" or "2 cases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
