package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mattn/go-runewidth"

	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// workflowCommand reports whether the GitHub Actions runner reads line as
// a workflow command: "::" after leading white space (it trims the line
// first), or the older form "##[" anywhere in the line.
func workflowCommand(line string) bool {
	rest := strings.TrimLeftFunc(line, func(r rune) bool { return unicode.IsSpace(r) || unicode.In(r, unicode.Zs) })
	return strings.HasPrefix(rest, "::") || strings.Contains(line, "##[")
}

// TestHostileNamesNoWorkflowCommand runs the CLI against the hostile-names
// fixture (tool names "::error::tool…", "\n::error::", escapes) and the
// hostile-workflow one ("##[error]…", names that wrap onto a line of their
// own) the ways a workflow step would — a run, --verbose, list, cases —
// and checks that no line of stdout or stderr is a workflow command or
// carries an escape sequence or a carriage return. Before the fix the
// gate's "gate missed: …" line printed the finding ids raw (newlines, ESC,
// OSC 8 and all) and --verbose started a line with a tool's name.
func TestHostileNamesNoWorkflowCommand(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"hostile-names", "hostile-workflow"} {
		bin := fixture.Build(t, name)
		for _, args := range [][]string{
			{"--cases", "3", "--", bin},
			{"--verbose", "--cases", "3", "--", bin},
			{"list", "--", bin},
			{"cases", "--", bin},
		} {
			var stdout, stderr bytes.Buffer
			app := &App{Stdout: &stdout, Stderr: &stderr, Version: "test", LookupEnv: func(string) (string, bool) { return "", false }}
			code := app.Run(context.Background(), args)
			out := stdout.String() + stderr.String()
			if code == ExitUsage || !strings.Contains(out, "pwned") {
				t.Errorf("%s %s: exit %d; the server's text is not shown at all:\n%s", name, args[0], code, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if workflowCommand(line) || strings.ContainsAny(line, "\x1b\x07\r") {
					t.Errorf("%s %s: injected line %q", name, args[0], line)
				}
			}
		}
	}
}

// TestProgressLiveWideNames: the live line fits the terminal in columns,
// not runes: a tool named in 40 double-width characters (80 columns) made
// the line wrap, and every redraw ("\r\x1b[K" clears one screen line) left
// a stale line behind.
func TestProgressLiveWideNames(t *testing.T) {
	t.Parallel()
	var b lockedBuffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := newProgress(&b)
	p.now, p.live, p.width = clock.now, true, 80
	wide := strings.Repeat("界", 60)
	p.event(engine.Event{Kind: engine.EventTools, Total: 1})
	p.event(engine.Event{Kind: engine.EventTool, Tool: wide, Total: 5})
	for i := range 5 {
		clock.add(300 * time.Millisecond)
		p.event(engine.Event{Kind: engine.EventCase, Tool: wide, Case: &report.Case{ID: wide + "/" + string(rune('a'+i)), Verdict: report.Handled}})
	}
	p.close()
	out := b.String()
	if !strings.Contains(out, "界界") {
		t.Fatalf("the tool is not named:\n%q", out)
	}
	for _, l := range strings.Split(out, "\r\x1b[K") {
		if strings.Contains(l, "\n") {
			continue // a message above the live line, which may wrap
		}
		if n := (&runewidth.Condition{EastAsianWidth: false}).StringWidth(l); n >= p.width {
			t.Errorf("live line of %d columns, over %d: %q", n, p.width-1, l)
		}
	}
}

// TestInitFileLineSeparators: YAML reads U+2028, U+2029 and NEL (U+0085)
// as line breaks, and refuses DEL and the other C1 controls. A server
// whose name, description or a schema default held "\u2028fail-on:
// none\u2028" made `mcp-fuzz init` write a file whose comment ended there
// and whose next "line" was a real key: the gate silently off in a file
// the user commits. Other names made the file fail to load at all. The
// file must load, set nothing, keep each name, and uncommented give the
// valid call back.
// invisible reports whether r hides or reorders text in a file a user
// reviews: a control, a bidirectional control, a zero-width space.
func invisible(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x061c || r == 0x200b || r == 0x200e || r == 0x200f ||
		(r >= 0x2028 && r <= 0x202e) || r == 0x2060 || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff
}

func TestInitFileLineSeparators(t *testing.T) {
	t.Parallel()
	yes := true
	// The server's name alone: before the fix this file loaded, with the
	// default gate turned off.
	only := &engine.Preview{Server: report.Server{Name: "srv\u2028fail-on: none\u2028#"}, Target: report.Target{Transport: "stdio", Command: "./srv"},
		Tools: []engine.PreviewedTool{{Name: "t", ReadOnly: &yes, Called: true, Valid: json.RawMessage(`{}`)}}}
	if f, err := config.Parse(initFile(only, "test")); err != nil || f.Values.Has("fail-on") {
		t.Errorf("a server name set fail-on %v (%v):\n%s", f.Values["fail-on"], err, initFile(only, "test"))
	}
	for _, inj := range []string{"\u2028fail-on: none\u2028#", "\u2029fail-under: 0\u2029#", "\u0085cases: 1\u0085#", "\x7fdel", "\u0080c1", "\ufeffbom", "\u2028", "\u202eevil", "\u2066iso\u2069", "zero\u200bwidth", "join\u2060er"} {
		quoted, _ := json.Marshal(inj)
		p := &engine.Preview{
			Server: report.Server{Name: "srv" + inj},
			Target: report.Target{Transport: "stdio", Command: "./srv" + inj},
			Tools: []engine.PreviewedTool{
				{Name: "t" + inj, Description: "d" + inj, ReadOnly: &yes, Called: true, CallReason: "annotated readOnlyHint: true" + inj,
					Valid: json.RawMessage(`{"q":` + string(quoted) + `,"n":1}`)},
				{Name: "u" + inj, Description: "d" + inj, SkipReason: "not called: x" + inj, Valid: json.RawMessage(`{}`)},
			},
		}
		b := initFile(p, "test"+inj)
		if i := strings.IndexFunc(string(b), invisible); i >= 0 {
			t.Errorf("%q: the file holds the invisible %U raw:\n%s", inj, []rune(string(b)[i:])[0], b)
		}
		f, err := config.Parse(b)
		if err != nil {
			t.Errorf("%q: the file does not load: %v\n%s", inj, err, b)
			continue
		}
		if len(f.Values) > 0 {
			t.Errorf("%q: a server's text set a key: %+v\n%s", inj, f, b)
		}
		for _, tool := range p.Tools {
			if _, ok := f.PerTool[tool.Name]; !ok {
				t.Errorf("%q: no per-tool entry named %q", inj, tool.Name)
			}
		}
		f, err = config.Parse([]byte(uncomment(string(b))))
		if err != nil {
			t.Errorf("%q: the uncommented file does not load: %v\n%s", inj, err, uncomment(string(b)))
			continue
		}
		if got := normalJSON(t, mustJSON(t, f.PerTool["t"+inj].Example)); got != normalJSON(t, p.Tools[0].Valid) {
			t.Errorf("%q: example %s, want %s", inj, got, p.Tools[0].Valid)
		}
	}
}

// Two tool names that differ only by an invisible character read
// differently in the comments of the file init writes.
func TestInitCommentsShowInvisibleCharacters(t *testing.T) {
	t.Parallel()
	yes := true
	p := &engine.Preview{
		Server: report.Server{Name: "srv"}, Target: report.Target{Transport: "stdio", Command: "./srv"},
		Tools: []engine.PreviewedTool{
			{Name: "ab", Description: "plain", ReadOnly: &yes, Called: true, Valid: json.RawMessage(`{}`)},
			{Name: "a\u200bb", Description: "zero\u200bwidth", ReadOnly: &yes, Called: true, Valid: json.RawMessage(`{}`)},
		},
	}
	b := string(initFile(p, "test"))
	if !strings.Contains(b, `zero\u200bwidth`) {
		t.Errorf("the description's zero-width space is not shown as \\u200b:\n%s", b)
	}
}
