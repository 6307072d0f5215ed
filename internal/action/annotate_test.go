package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// kinds spells annotations as "e" and "w" (gates and messages), "E" and
// "W" (groups of findings), and a closing line as "+e" or "+w".
func kinds(as []annotation, closing *annotation) string {
	var b strings.Builder
	for _, a := range as {
		k := a.kind[:1]
		if a.group {
			k = strings.ToUpper(k)
		}
		b.WriteString(k)
	}
	if closing != nil {
		b.WriteString("+" + closing.kind[:1])
	}
	return b.String()
}

// items builds annotations from a spelling of [kinds].
func items(spec string) []annotation {
	var out []annotation
	for i, c := range spec {
		a := annotation{kind: kindError, msg: fmt.Sprint(i)}
		if c == 'w' || c == 'W' {
			a.kind = kindWarning
		}
		a.group = c == 'E' || c == 'W'
		out = append(out, a)
	}
	return out
}

func TestPlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		items       string
		room        room
		shown, more string // more: the closing line's message contains it
	}{
		{"all fit", "eeEEWW", room{10, 10}, "eeEEWW", ""},
		{"exactly full", strings.Repeat("E", 10) + strings.Repeat("W", 10), room{10, 10}, strings.Repeat("E", 10) + strings.Repeat("W", 10), ""},
		{"errors overflow: the last error place says so", "eeee" + strings.Repeat("E", 7) + "WW", room{10, 10},
			"eeee" + strings.Repeat("E", 5) + "WW+e", "and 2 more groups of findings, in the job summary ("},
		{"warnings overflow: a warning says so", "E" + strings.Repeat("W", 12), room{10, 10},
			"E" + strings.Repeat("W", 9) + "+w", "and 3 more groups of findings"},
		{"a gate does not fit: it is a message, not a group", "eeeE", room{2, 10}, "ee+w", "and 1 more message, in the log, and 1 more group of findings, in the job summary"},
		{"gates are never pushed out by the closing line", "eeeEW", room{3, 1}, "eee+w", "and 2 more groups"},
		{"gates fill everything: no closing line", "eeE", room{2, 0}, "ee", ""},
		{"no error room: the closing line is a warning", "EEW", room{0, 2}, "W+w", "and 2 more groups"},
		{"no error room, warnings full: the last warning gives way", "EWW", room{0, 2}, "W+w", "and 2 more groups"},
		{"no room at all", "EW", room{0, 0}, "", ""},
		{"a dropped warning takes a warning's place", "EWW", room{1, 1}, "E+w", "and 2 more groups"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shown, dropped, closing := plan(items(tc.items), tc.room)
			if got := kinds(shown, closing); got != tc.shown {
				t.Errorf("shown %q, want %q", got, tc.shown)
			}
			if len(shown)+len(dropped) != len(tc.items) {
				t.Errorf("%d shown + %d dropped of %d", len(shown), len(dropped), len(tc.items))
			}
			var e, w int
			for _, a := range append(shown, deref(closing)...) {
				if a.kind == kindError {
					e++
				} else {
					w++
				}
			}
			if e > tc.room.errors || w > tc.room.warnings {
				t.Errorf("%d errors and %d warnings in room %+v", e, w, tc.room)
			}
			if tc.more != "" && (closing == nil || !strings.Contains(closing.msg, tc.more)) {
				t.Errorf("closing line %+v, want one containing %q", closing, tc.more)
			}
			// Shown items keep their order.
			last := -1
			for _, a := range shown {
				var i int
				fmt.Sscan(a.msg, &i)
				if i < last {
					t.Errorf("order changed: %v", shown)
				}
				last = i
			}
		})
	}
}

func deref(a *annotation) []annotation {
	if a == nil {
		return nil
	}
	return []annotation{*a}
}

func TestGroupFindings(t *testing.T) {
	t.Parallel()
	f := func(sev report.Severity, tool, code, caseID string) report.Finding {
		id := caseID
		if id == "" {
			id = "protocol/" + code + "/x"
		}
		return report.Finding{ID: id + "#" + code, Severity: sev, Code: code, Tool: tool, CaseID: caseID, Message: "msg of " + id}
	}
	fs := []report.Finding{
		f("warning", "a", "empty_success", "a/valid"),
		f("info", "a", "slow", "a/valid"),
		f("error", "b", "accepted", "b/x"),
		f("critical", "c", "crash", "c/1"),
		f("critical", "c", "crash", "c/2"),
		f("critical", "d", "crash", "d/1"),
		f("critical", "c", "crash", "c/3"),
		f("critical", "c", "crash", "c/4"),
		f("warning", "", "envelope_ignored", ""),
		f("warning", "", "envelope_ignored", ""),
	}
	var got []string
	for _, g := range groupFindings(fs) {
		a := g.annotation()
		got = append(got, a.kind+" | "+a.title+" | "+a.msg)
	}
	want := []string{
		"error | mcp-fuzz: crash in c | crash in c: 4 cases (c/1, c/2, c/3, and 1 more): msg of c/1",
		"error | mcp-fuzz: crash in d | crash in d: 1 case (d/1): msg of d/1",
		"error | mcp-fuzz: accepted in b | accepted in b: 1 case (b/x): msg of b/x",
		"warning | mcp-fuzz: envelope_ignored in the server | envelope_ignored in the server: 2 findings (protocol/envelope_ignored/x, protocol/envelope_ignored/x): msg of protocol/envelope_ignored/x",
		"warning | mcp-fuzz: empty_success in a | empty_success in a: 1 case (a/valid): msg of a/valid",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAnnotationCounter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	c := &annotationCounter{w: &out}
	for _, s := range []string{
		"::error::a\n", "::err", "or title=x::b\n", "::WARNING::c\n", "::warning file=f::d\r\n",
		"not ::error::e\n", "::notice::f\n", "::errorx::g\n", "::error::", "\n", "::warn", "ing::h",
	} {
		fmt.Fprint(c, s)
	}
	if c.errors != 3 || c.warnings != 3 {
		t.Errorf("counted %d errors and %d warnings, want 3 and 3", c.errors, c.warnings)
	}
	if !strings.HasPrefix(out.String(), "::error::a\n::error title=x::b\n") {
		t.Errorf("output changed:\n%s", out.String())
	}
}

// TestAnnotateCountsWhatCameBefore checks that annotations printed before
// (configuration warnings) and kept for after (the comment) shrink the
// findings' share, so the step never has more than the limit.
func TestAnnotateCountsWhatCameBefore(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	count := &annotationCounter{w: &out}
	r := &runner{env: Env{Stdout: count}, gh: githubactions.New(githubactions.WithWriter(count)), count: count}
	for i := 0; i < 7; i++ {
		r.gh.Warningf("mcp-fuzz: config warning %d", i)
	}
	r.gh.Errorf("mcp-fuzz: an error before")
	var fs []report.Finding
	for i := 0; i < 15; i++ {
		fs = append(fs,
			report.Finding{Severity: "warning", Code: "empty_success", Tool: fmt.Sprint("w", i), CaseID: "c"},
			report.Finding{Severity: "critical", Code: "crash", Tool: fmt.Sprint("e", i), CaseID: "c"})
	}
	r.annotate(annotations([]string{"gate"}, nil, nil, fs), room{warnings: 1})
	r.gh.Warningf("mcp-fuzz: the comment's warning")
	if count.errors != MaxErrorAnnotations || count.warnings != MaxWarningAnnotations {
		t.Errorf("%d errors and %d warnings, want %d and %d:\n%s", count.errors, count.warnings, MaxErrorAnnotations, MaxWarningAnnotations, out.String())
	}
	lines := strings.Split(out.String(), "\n")
	if lines[8] != "::error::mcp-fuzz: gate missed: gate" {
		t.Errorf("the gate is not the first annotation printed:\n%s", out.String())
	}
}

// TestActionAnnotationsOnTheDemo runs the whole Action on the demo server
// with the default gate: its four missed gates come first, then one
// annotation per (tool, code), within ten errors and ten warnings, the last
// error saying what was left out.
func TestActionAnnotationsOnTheDemo(t *testing.T) {
	t.Parallel()
	bin := mcpFuzzBinary(t)
	ws := t.TempDir()
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "out"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "summary"),
		"GITHUB_EVENT_NAME": "push", "PATH": os.Getenv("PATH"),
		"INPUT_COMMAND": bin + " demo-server", "INPUT_TIMEOUT": "1",
	}
	var out bytes.Buffer
	code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out})
	if code != ExitGate {
		t.Fatalf("exit %d, want %d\n%s", code, ExitGate, out.String())
	}
	var errs, warns []string
	for _, l := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "::error"):
			errs = append(errs, l)
		case strings.HasPrefix(l, "::warning"):
			warns = append(warns, l)
		}
	}
	t.Logf("annotations:\n%s\n%s", strings.Join(errs, "\n"), strings.Join(warns, "\n"))
	if len(errs) != MaxErrorAnnotations || len(warns) > MaxWarningAnnotations {
		t.Errorf("%d errors and %d warnings, want %d and at most %d", len(errs), len(warns), MaxErrorAnnotations, MaxWarningAnnotations)
	}
	if len(errs) == 0 || !strings.HasPrefix(errs[0], "::error::mcp-fuzz: gate missed: ") {
		t.Fatalf("the first annotation is not the missed gate")
	}
	for i, want := range []string{
		"::error::mcp-fuzz: gate missed: ",
		"::error::mcp-fuzz: gate missed: ",
		"::error::mcp-fuzz: gate missed: ",
		"::error::mcp-fuzz: gate missed: ",
		"::error title=mcp-fuzz%3A protocol_violation in debug_status::protocol_violation in debug_status: 11 cases (debug_status/valid, ",
		"::error title=mcp-fuzz%3A leak in read_config::leak in read_config: 10 cases (",
		"::error title=mcp-fuzz%3A crash in parse_date::crash in parse_date: 8 cases (",
		"::error title=mcp-fuzz%3A crash in get_weather::crash in get_weather: 7 cases (",
		"::error title=mcp-fuzz%3A hang in slow_lookup::hang in slow_lookup: 2 cases (",
		"::error::mcp-fuzz: and 2 more groups of findings, in the job summary (GitHub shows 10 error and 10 warning annotations per step)",
	} {
		if i < len(errs) && !strings.HasPrefix(errs[i], want) {
			t.Errorf("error %d:\n%s\nwant it to start with\n%s", i, errs[i], want)
		}
	}
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	for _, s := range []string{"accepted", `output\_violation`} {
		if !strings.Contains(string(summary), s) {
			t.Errorf("the job summary, which the closing line points to, lacks %s", s)
		}
	}
}

// TestDroppedMessagesStayPlain: a missed gate that finds no place is printed
// as a plain line, which server text (a tool name in the gate's case ids)
// cannot turn into a workflow command.
func TestDroppedMessagesStayPlain(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	count := &annotationCounter{w: &out}
	r := &runner{env: Env{Stdout: count}, gh: githubactions.New(githubactions.WithWriter(count)), count: count}
	var gates []string
	for i := 0; i < MaxErrorAnnotations+2; i++ {
		gates = append(gates, fmt.Sprintf("gate %d: tool\n::error::injected\r\n::warning::injected", i))
	}
	r.annotate(annotations(gates, nil, nil, nil), room{})
	if count.errors != MaxErrorAnnotations || count.warnings != 1 || strings.Contains(out.String(), "\n::error::injected") {
		t.Errorf("%d errors, %d warnings (want %d and the closing line):\n%s", count.errors, count.warnings, MaxErrorAnnotations, out.String())
	}
	if !strings.Contains(out.String(), "\nerror: mcp-fuzz: gate missed: gate 11: tool ::error::injected") {
		t.Errorf("the last gate is not in the log as a plain line:\n%s", out.String())
	}
}
