package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
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
		fmt.Fprintf(p.w, "- %s: skipped (%s)\n", escape.Terminal(e.Tool, 80), escape.Terminal(e.Reason, 200))
	case engine.EventTool:
		fmt.Fprintf(p.w, "> %s: %s\n", escape.Terminal(e.Tool, 80), plural(e.Total, "case", "cases"))
	case engine.EventCutoff:
		fmt.Fprintf(p.w, "  ! %s: %s\n", escape.Terminal(e.Tool, 80), escape.Terminal(e.Reason, 200))
	case engine.EventEra:
		fmt.Fprintf(p.w, "= auditing in the %s era (--era both)\n", e.Reason)
	case engine.EventChecks:
		if e.Total > 0 {
			fmt.Fprintf(p.w, "> protocol checks: %s\n", plural(e.Total, "request", "requests"))
		}
	case engine.EventPhase:
		fmt.Fprintf(p.w, "> %s\n", escape.Terminal(e.Reason, 200))
	case engine.EventCheck:
		if e.Check.Status == report.CheckFail {
			fmt.Fprintf(p.w, "  ! %s: %s\n", escape.Terminal(e.Check.ID, 120), escape.Terminal(e.Check.Code, 60))
		}
	case engine.EventCase:
		if e.Case.Verdict.Failure() {
			fmt.Fprintf(p.w, "  ! %s: %s\n", escape.Terminal(e.Case.ID, 120), e.Case.Verdict)
		}
	}
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
