package cli

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestProgressEscapesReasons: a skip reason can quote the server's schema
// (a property name in an invalid tool definition), so no escape sequence
// of it reaches the terminal, as in the Action's log.
func TestProgressEscapesReasons(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	p := newProgress(&b)
	p.event(engine.Event{Kind: engine.EventSkip, Tool: "t", Reason: "not called: inputSchema/properties/\x1b[2Jx: bad"})
	p.event(engine.Event{Kind: engine.EventCutoff, Tool: "t", Reason: "cut \x1b]0;title\x07"})
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("progress printed control characters: %q", b.String())
	}
}

// lockedBuffer is a strings.Builder safe for the progress clock's
// goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fakeClock is a clock that moves when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// runTools sends p the events of two tools of three (one skipped), the
// second tool's first case reported again when it turned out a crash.
func runTools(p *progress, clock *fakeClock) {
	p.event(engine.Event{Kind: engine.EventTools, Total: 3})
	p.event(engine.Event{Kind: engine.EventSkip, Tool: "delete", Reason: "destructive"})
	p.event(engine.Event{Kind: engine.EventToolDone, Tool: "delete"})
	for _, tool := range []string{"a", "b"} {
		p.event(engine.Event{Kind: engine.EventTool, Tool: tool, Total: 10})
		for i := range 10 {
			clock.add(200 * time.Millisecond)
			c := &report.Case{ID: fmt.Sprintf("%s/%d", tool, i), Verdict: report.Handled}
			if tool == "b" && i < 3 {
				c.Verdict = report.Crash
			}
			p.event(engine.Event{Kind: engine.EventCase, Tool: tool, Case: c})
			if tool == "b" && i == 4 {
				c := &report.Case{ID: "b/4", Verdict: report.Crash}
				p.event(engine.Event{Kind: engine.EventCase, Tool: tool, Case: c})
			}
		}
		p.event(engine.Event{Kind: engine.EventToolDone, Tool: tool})
	}
}

// TestProgressPlain: off a terminal, a line per tool with where the run
// is and the time left, never one per case; a status line after a
// silence. The clock's ticks run on synctest's time: none comes between
// the events, and the one after the silence comes for sure.
func TestProgressPlain(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var b lockedBuffer
		clock := &fakeClock{t: time.Unix(0, 0)}
		p := newProgress(&b)
		p.now = clock.now
		p.heartbeat = 20 * time.Millisecond
		runTools(p, clock)
		out := b.String()
		for _, want := range []string{
			"- delete: skipped: destructive\n",
			"> a: 10 cases (tool 2 of 3, 0.0 s)\n",
			"> b: 10 cases (tool 3 of 3, 2.0 s, about 2.0 s left)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("progress lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "b/0") || strings.Count(out, "\n") != 3 {
			t.Errorf("progress printed more than a line per tool:\n%s", out)
		}
		// Silence: the clock prints where the run is.
		clock.add(10 * time.Second)
		time.Sleep(p.heartbeat)
		synctest.Wait()
		p.close()
		if want := "  … 3/3 tools · 20 cases · 4 failures · 14.0 s\n"; !strings.Contains(b.String(), want) {
			t.Errorf("no status line %q after a silence:\n%s", want, b.String())
		}
		if strings.Contains(b.String(), "\r") {
			t.Error("a carriage return off a terminal")
		}
	})
}

// TestProgressLive: on a terminal, one line redrawn in place, messages
// above it, cleared at the end.
func TestProgressLive(t *testing.T) {
	t.Parallel()
	var b lockedBuffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := newProgress(&b)
	p.now, p.live, p.width = clock.now, true, 60
	runTools(p, clock)
	p.close()
	out := b.String()
	if strings.Contains(out, "> a:") {
		t.Errorf("a tool line on a terminal:\n%q", out)
	}
	if !strings.Contains(out, "\r\x1b[K- delete: skipped: destructive\n") {
		t.Errorf("the skip message is not above the live line:\n%q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the live line is not cleared at the end:\n%q", out)
	}
	for _, l := range strings.Split(out, "\r\x1b[K") {
		l = strings.TrimSuffix(l, "\n")
		if n := len([]rune(l)); n >= p.width {
			t.Errorf("live line of %d columns, over %d: %q", n, p.width-1, l)
		}
	}
	if !strings.Contains(out, "mcp-fuzz  3/3 tools · 20 cases · 4 failures · 4.0 s") {
		t.Errorf("the last live line is not the last count:\n%q", out)
	}
}

// TestProgressBothEras: with --era both the same cases run again in the
// second era; they count again.
func TestProgressBothEras(t *testing.T) {
	t.Parallel()
	var b lockedBuffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := newProgress(&b)
	p.now = clock.now
	p.event(engine.Event{Kind: engine.EventEra, Reason: "modern"})
	runTools(p, clock)
	p.event(engine.Event{Kind: engine.EventEra, Reason: "legacy"})
	runTools(p, clock)
	p.close()
	if p.cases != 40 || p.failures != 8 {
		t.Errorf("cases %d, failures %d after two eras; want 40 and 8", p.cases, p.failures)
	}
	if !strings.Contains(b.String(), "= auditing in the legacy era (--era both)\n") {
		t.Errorf("no era line:\n%s", b.String())
	}
}
