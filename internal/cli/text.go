package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// progress reports how the run goes on stderr. On a terminal (live) it
// keeps one line, redrawn in place: tools done of all, cases done, the
// failures so far (crash, hang, protocol violation), time elapsed and an
// estimate of the time left; messages (a tool skipped or cut short, a
// phase of checks, a failed check) are printed above it. Elsewhere (CI, a
// file) it prints a line per tool as it starts, the same messages, and a
// status line when nothing was printed for heartbeat: never a line per
// case.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	live      bool
	width     int           // of the live line, in columns
	heartbeat time.Duration // not live: the longest silence
	now       func() time.Time

	start, toolsStart time.Time
	last              time.Time // the last line printed (not live)
	drawn             time.Time // the live line last drawn
	shown             bool      // the live line is on screen
	stop              chan struct{}
	stopped           chan struct{}

	toolsTotal, toolsDone int
	cases, failures       int
	base                  int             // cases before this audit's tools (--era both audits twice)
	started               map[string]int  // tools running: cases planned
	casesOf               map[string]int  // cases done per tool
	seen, failed          map[string]bool // cases counted (tool and id)
	current               string          // the tool started last
	phase                 string          // after the tools: the checks running
	checks, checksTotal   int
}

// newProgress reports on w in plain lines, a status line after 5 s of
// silence.
func newProgress(w io.Writer) *progress {
	return &progress{w: w, heartbeat: 5 * time.Second, now: time.Now, width: 80,
		started: map[string]int{}, casesOf: map[string]int{}, seen: map[string]bool{}, failed: map[string]bool{}}
}

// newProgressFor reports on the App's stderr: live when it is a terminal
// (and TERM is not dumb), fitted to its width.
func (a *App) newProgressFor() *progress {
	p := newProgress(a.Stderr)
	f, ok := a.Stderr.(*os.File)
	dumb := false
	if a.LookupEnv != nil {
		v, _ := a.LookupEnv("TERM")
		dumb = v == "dumb"
	}
	if ok && !dumb && term.IsTerminal(int(f.Fd())) {
		p.live = true
		if n := a.columns(a.Stderr); n > 0 {
			p.width = n
		}
	}
	return p
}

func (p *progress) event(e engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.start.IsZero() {
		p.start = p.now()
		p.last = p.start
		p.tick()
	}
	switch e.Kind {
	case engine.EventTools:
		// With --era both, the second audit runs the same cases again:
		// they count again, and the estimate starts over.
		p.toolsTotal, p.toolsDone, p.toolsStart, p.phase, p.base = e.Total, 0, p.now(), "", p.cases
		clear(p.started)
		clear(p.casesOf)
		clear(p.seen)
		clear(p.failed)
	case engine.EventSkip:
		p.message(fmt.Sprintf("- %s: skipped: %s", escape.Terminal(e.Tool, 80), escape.Terminal(e.Reason, 200)))
	case engine.EventTool:
		p.started[e.Tool], p.current = e.Total, e.Tool
		if !p.live {
			p.message(fmt.Sprintf("> %s: %s (%s)", escape.Terminal(e.Tool, 80), plural(e.Total, "case", "cases"), p.where()))
		}
	case engine.EventToolDone:
		p.toolsDone++
		delete(p.started, e.Tool)
	case engine.EventCutoff:
		p.message(fmt.Sprintf("  ! %s: %s", escape.Terminal(e.Tool, 80), escape.Terminal(e.Reason, 200)))
	case engine.EventEra:
		p.message(fmt.Sprintf("= auditing in the %s era (--era both)", escape.Terminal(e.Reason, 20)))
	case engine.EventChecks:
		if e.Total > 0 {
			p.phase, p.checks, p.checksTotal = "protocol checks", 0, e.Total
			p.message(fmt.Sprintf("> protocol checks: %s", plural(e.Total, "request", "requests")))
		}
	case engine.EventPhase:
		p.phase, p.checks, p.checksTotal = phaseName(e.Reason), 0, e.Total
		p.message(fmt.Sprintf("> %s", escape.Terminal(e.Reason, 200)))
	case engine.EventCheck:
		p.checks++
		if e.Check.Status == report.CheckFail {
			p.message(fmt.Sprintf("  ! %s: %s", escape.Terminal(e.Check.ID, 120), escape.Terminal(e.Check.Code, 60)))
		}
	case engine.EventCase:
		// A case is reported again when a later call finds the server
		// gone after it: counted once, a failure once.
		k := e.Tool + "\x00" + e.Case.ID
		if !p.seen[k] {
			p.seen[k] = true
			p.cases++
			p.casesOf[e.Tool]++
		}
		if e.Case.Verdict.Failure() && !p.failed[k] {
			p.failed[k] = true
			p.failures++
		}
	}
	if p.live && (e.Kind != engine.EventCase || p.now().Sub(p.drawn) >= 100*time.Millisecond) {
		p.draw()
	}
}

// phaseName is the words of a phase's reason before its colon:
// "concurrency checks (--concurrency 3)".
func phaseName(reason string) string {
	name, _, _ := strings.Cut(escape.Terminal(reason, 200), ":")
	return name
}

// message prints a line: above the live line, which is drawn again.
func (p *progress) message(line string) {
	if p.live {
		fmt.Fprintf(p.w, "\r\x1b[K%s\n", line)
		p.shown = false
		p.draw()
		return
	}
	fmt.Fprintln(p.w, line)
	p.last = p.now()
}

// cells measures the live line in terminal columns: East Asian wide
// characters take two, combining marks none; ambiguous ones (·, …) one,
// whatever the locale says.
var cells = &runewidth.Condition{EastAsianWidth: false}

// status says how far the run is, one line: "5/11 tools · 53 cases · 12
// failures · get_weather 3/10 · 2.1 s · about 4 s left".
func (p *progress) status() string {
	parts := []string{}
	if p.toolsTotal > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d tools", p.toolsDone, p.toolsTotal))
	}
	parts = append(parts, plural(p.cases, "case", "cases"), plural(p.failures, "failure", "failures"))
	switch {
	case p.phase != "":
		parts = append(parts, fmt.Sprintf("%s %d/%d", p.phase, p.checks, p.checksTotal))
	case p.current != "":
		if planned, ok := p.started[p.current]; ok {
			parts = append(parts, fmt.Sprintf("%s %d/%d", escape.Terminal(p.current, 40), p.casesOf[p.current], planned))
		}
	}
	parts = append(parts, p.elapsed())
	return strings.Join(parts, " · ")
}

// where is the tool line's "tool 5 of 11, 2.1 s, about 4 s left".
func (p *progress) where() string {
	s := ""
	if p.toolsTotal > 0 {
		s = fmt.Sprintf("tool %d of %d, ", p.toolsDone+len(p.started), p.toolsTotal)
	}
	return s + p.elapsed()
}

// elapsed is the time since the first event, with the time left when it
// can be estimated.
func (p *progress) elapsed() string {
	s := duration(p.now().Sub(p.start))
	if left, ok := p.left(); ok {
		s += ", about " + duration(left) + " left"
	}
	return s
}

// left estimates the time the tools still take, from the time per case
// so far and the cases still to run: those planned for the tools running,
// and for each tool not started yet as many as the started ones averaged.
func (p *progress) left() (time.Duration, bool) {
	done := p.cases - p.base
	if p.phase != "" || p.toolsTotal == 0 || p.toolsDone >= p.toolsTotal || done < 5 || p.toolsStart.IsZero() {
		return 0, false
	}
	spent := p.now().Sub(p.toolsStart)
	if spent < time.Second {
		return 0, false
	}
	remaining, planned, plannedTools := 0, 0, 0
	for t, n := range p.started {
		remaining += max(n-p.casesOf[t], 0)
	}
	for t, n := range p.casesOf {
		if _, running := p.started[t]; !running {
			planned += n
			plannedTools++
		}
	}
	for _, n := range p.started {
		planned += n
		plannedTools++
	}
	waiting := p.toolsTotal - p.toolsDone - len(p.started)
	if waiting > 0 && plannedTools > 0 {
		remaining += waiting * planned / plannedTools
	}
	return time.Duration(float64(spent) * float64(remaining) / float64(done)), true
}

// duration says a duration to a tenth of a second under a minute, else to
// the second: "2.1 s", "1m20s".
func duration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// draw writes the live line over the last one, cut to the width.
func (p *progress) draw() {
	line := "mcp-fuzz  " + p.status()
	// Cut in columns, not runes: a tool named in double-width characters
	// would make the line wrap, and "\r\x1b[K" clears one screen line.
	if cells.StringWidth(line) > p.width-1 {
		line = cells.Truncate(line, max(p.width-1, 1), "…")
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.shown, p.drawn = true, p.now()
}

// tick starts the clock that redraws the live line every second (the
// elapsed time moves during a slow call), or prints a status line after
// heartbeat of silence.
func (p *progress) tick() {
	every := time.Second
	if !p.live {
		every = p.heartbeat
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				switch {
				case p.live:
					p.draw()
				case p.now().Sub(p.last) >= p.heartbeat:
					fmt.Fprintf(p.w, "  … %s\n", p.status())
					p.last = p.now()
				}
				p.mu.Unlock()
			}
		}
	}()
}

// close stops the clock and clears the live line, so that what follows
// starts on a clean line.
func (p *progress) close() {
	p.mu.Lock()
	stop, stopped := p.stop, p.stopped
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
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

// columns is the width of the terminal w writes to: $COLUMNS when it is a
// positive number, else the terminal's own when w is one, else 0 (unknown).
func (a *App) columns(w io.Writer) int {
	if a.LookupEnv != nil {
		if v, ok := a.LookupEnv("COLUMNS"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return 0
}
