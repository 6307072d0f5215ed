package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// controls is server text carrying every kind of control character that
// encoding/json leaves raw: a C1 CSI (U+009B) starting a colour sequence,
// DEL, NEL (U+0085), the bidirectional overrides and isolates, LRM/RLM, the
// Arabic letter mark, the line separators, plus C0 controls (which XML 1.0
// forbids) and an ESC sequence.
const controls = "\u009b[31mred\x7f\u0085 \u202egnp.exe\u202c \u2066iso\u2069 \u200e\u200f\u061c" +
	" \u202a\u202b\u202d \u2067\u2068 \u2028\u2029 \x00\x01\x0b\x1f \x1b[2J"

// isHidden reports whether r must never appear raw in any rendered format:
// DEL, the C1 controls and the bidirectional controls.
func isHidden(r rune) bool {
	return r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// controlReport is [gradedReport] with [controls] in every piece of server
// text: the server's name and instructions, a tool's name and description,
// case details, responses, stderr, arguments, findings and lint.
func controlReport() *report.Report {
	rep := gradedReport()
	rep.Server.Name = "srv" + controls
	rep.Server.Instructions = "instr" + controls
	rep.Critical = append(rep.Critical, "crit"+controls)
	rep.Discovery.Notes = []string{"note" + controls}
	rep.EndedEarly = "early" + controls
	for i := range rep.Tools {
		t := &rep.Tools[i]
		t.Description = "desc" + controls
		if !t.Tested {
			t.SkipReason = "skip" + controls
		}
		for j := range t.Cases {
			c := &t.Cases[j]
			c.Detail = "detail" + controls
			c.Response = "resp" + controls
			if c.Crash != nil {
				c.Crash.Stderr = "stderr" + controls
			}
		}
	}
	rep.Tools[0].Name = "tool" + controls
	// Case ids start with the tool name, as the engine makes them.
	for j := range rep.Tools[0].Cases {
		rep.Tools[0].Cases[j].ID = rep.Tools[0].Name + "/" + rep.Tools[0].Cases[j].ID
	}
	args, _ := json.Marshal(map[string]string{"city": controls})
	rep.Tools[0].Cases[0].Arguments = args
	rep.Lint = append(rep.Lint, report.Lint{Code: "c", Severity: "warning", Tool: rep.Tools[0].Name, Message: "lint" + controls, Hint: "hint" + controls})
	rep.Summary = report.Summarize(rep.Tools)
	rep.Findings = findingsFor(rep)
	return rep
}

// checkNoHidden fails when out holds a raw DEL, C1 or bidirectional control,
// or (with noC0) a C0 control other than tab, newline and carriage return.
func checkNoHidden(t *testing.T, format string, out []byte, noC0 bool) {
	t.Helper()
	for i, r := range string(out) {
		if isHidden(r) || noC0 && r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			lo, hi := max(0, i-30), min(len(out), i+30)
			t.Errorf("%s: raw %U at byte %d: %q", format, r, i, out[lo:hi])
			return
		}
	}
}

// TestControlCharacters renders a report full of control characters in every
// format: none carries a DEL, C1 or bidirectional control raw, the XML stays
// well-formed, and the JSON outputs decode to exactly the strings the report
// holds.
func TestControlCharacters(t *testing.T) {
	rep := controlReport()

	// The JSON report round-trips: escaped, it decodes to the same values as
	// encoding/json's own output.
	out, err := JSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	checkNoHidden(t, "json", out, true)
	if !bytes.Contains(out, []byte(`\u009b[31mred\u007f\u0085 \u202egnp.exe\u202c`)) {
		t.Errorf("json: controls not escaped as \\uXXXX")
	}
	plain, _ := json.Marshal(rep)
	var want, got any
	if err := json.Unmarshal(plain, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("json: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("json: escaped report decodes to other values than encoding/json's")
	}
	var back report.Report
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.Server.Name != rep.Server.Name || back.Tools[0].Description != rep.Tools[0].Description ||
		back.Tools[0].Cases[0].Detail != rep.Tools[0].Cases[0].Detail || back.Tools[0].Cases[0].Response != rep.Tools[0].Cases[0].Response {
		t.Errorf("json: strings changed in the round trip: server name %q", back.Server.Name)
	}

	merged, err := MergedJSON([]*report.Report{rep, rep})
	if err != nil {
		t.Fatal(err)
	}
	checkNoHidden(t, "merged json", merged, true)
	var reps []report.Report
	if err := json.Unmarshal(merged, &reps); err != nil || len(reps) != 2 || reps[1].Server.Name != rep.Server.Name {
		t.Errorf("merged json: round trip failed (%v)", err)
	}

	// JSONL: every line decodes, to the report's own strings.
	var jl bytes.Buffer
	if err := JSONL(rep, &jl); err != nil {
		t.Fatal(err)
	}
	checkNoHidden(t, "jsonl", jl.Bytes(), true)
	sc := bufio.NewScanner(&jl)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		var line JSONLCaseLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("jsonl line %d: %v", lines+1, err)
		}
		if line.Type == JSONLCase && (line.Detail != "detail"+controls || line.Response != "resp"+controls) {
			t.Errorf("jsonl line %d: detail %q, response %q changed in the round trip", lines+1, line.Detail, line.Response)
		}
		if line.Type == JSONLCase && line.CaseID == rep.Tools[0].Cases[0].ID {
			var a map[string]string
			if err := json.Unmarshal(line.Arguments, &a); err != nil || a["city"] != controls {
				t.Errorf("jsonl: arguments changed in the round trip: %q (%v)", a["city"], err)
			}
			if line.Tool != rep.Tools[0].Name {
				t.Errorf("jsonl: tool %q changed in the round trip", line.Tool)
			}
		}
		lines++
	}
	if lines == 0 {
		t.Error("jsonl: no lines")
	}

	// SARIF cleans its text, and must still be JSON without raw controls.
	sarif, err := SARIF(rep, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkNoHidden(t, "sarif", sarif, true)
	if !json.Valid(sarif) {
		t.Error("sarif: not valid JSON")
	}

	// JUnit: well-formed XML 1.0, controls shown as \uXXXX.
	junit, err := JUnit(rep)
	if err != nil {
		t.Fatal(err)
	}
	checkNoHidden(t, "junit", junit, true)
	if err := xml.Unmarshal(junit, new(junitSuites)); err != nil {
		t.Errorf("junit: not well-formed: %v", err)
	}
	for _, s := range []string{`\u009b[31mred\u007f\u0085`, `\u202egnp.exe\u202c`, `\u0000\u0001\u000b\u001f`} {
		if !bytes.Contains(junit, []byte(s)) {
			t.Errorf("junit: %s not shown visibly", s)
		}
	}

	for _, f := range []struct {
		name string
		out  string
	}{
		{"markdown", Markdown(rep)},
		{"merged markdown", MergedMarkdown([]*report.Report{rep})},
		{"terminal", Terminal(rep, true)},
		{"terminal (no colour)", Terminal(rep, false)},
		{"badge", string(BadgeSVG(rep))},
	} {
		checkNoHidden(t, f.name, []byte(f.out), false)
		if f.name != "terminal" && strings.Contains(f.out, "\x1b") {
			t.Errorf("%s: ESC survived", f.name)
		}
	}
	checkNoHidden(t, "badge", BadgeSVG(rep), true)
}

// injection is server text that tries each way into a terminal or a
// Markdown document: colour and a title (ANSI), a bidirectional override,
// a bell and a carriage return, HTML that closes our <details> and loads
// an image, a comment marker, table pipes, backticks, emphasis, a link,
// an @mention, workflow commands of the Actions runner, and a newline
// that would start a line of its own.
const injection = "\x1b[31mRED\x1b[0m\x1b]0;title\x07 \u202eRLO\u202c </details><img src=x> <!-- c --> a|b `tick` *bold* [link](http://x) " +
	"@everyone ##[error]wf\r\x07\n::error::NEWLINE"

// injectionReport is [gradedReport] with an era comparison, protocol,
// concurrency and lifecycle checks, a box and notes, in which every string
// the report holds — all but the enumerations when keepKinds (verdicts,
// severities, statuses, groups, kinds, eras), which say which section a
// value lands in — is distinct server text carrying [injection].
func injectionReport(keepKinds bool) *report.Report {
	rep := withEverySection(gradedReport())
	rep.EraComparison = erasReport().EraComparison
	rep.Server.Era = "modern"
	rep.Tools[0].Cases[0].Task = true
	n := 0
	var fill func(v reflect.Value, name string)
	fill = func(v reflect.Value, name string) {
		if keepKinds && slices.Contains([]string{"Verdict", "Severity", "Status", "Group", "Kind", "Era"}, name) {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() && v.Type().Elem().Kind() == reflect.String {
				v.Set(reflect.New(v.Type().Elem()))
			}
			if !v.IsNil() {
				fill(v.Elem(), name)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() {
					fill(v.Field(i), f.Name)
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 { // JSON: arguments
				b, _ := json.Marshal(map[string]string{"q": injection})
				v.SetBytes(b)
				return
			}
			for i := range v.Len() {
				fill(v.Index(i), name)
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(v.MapIndex(k))
				fill(e, name)
				v.SetMapIndex(k, e)
			}
			if v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.Struct {
				e := reflect.New(v.Type().Elem()).Elem()
				fill(e, name)
				v.SetMapIndex(reflect.ValueOf(fmt.Sprintf("key%d %s", n, injection)), e)
			}
		case reflect.String:
			n++
			v.SetString(fmt.Sprintf("s%d %s", n, injection))
		}
	}
	fill(reflect.ValueOf(rep).Elem(), "")
	return rep
}

// TestInjectionEverywhere renders [injectionReport] in the terminal (the
// summary at several widths and --verbose, in colour and without) and in
// Markdown: the server text shows, but none of its tricks gets through.
func TestInjectionEverywhere(t *testing.T) {
	for _, keepKinds := range []bool{true, false} {
		rep := injectionReport(keepKinds)
		outputs := []string{"report.md", injection}
		term := map[string]string{}
		for _, colour := range []bool{false, true} {
			term[fmt.Sprintf("terminal colour=%v", colour)] = Terminal(rep, colour)
			for _, width := range []int{0, 80, 120} {
				term[fmt.Sprintf("summary colour=%v width=%d", colour, width)] = TerminalSummary(rep, TerminalOptions{Colour: colour, Width: width, Outputs: outputs})
			}
		}
		for name, out := range term {
			name = fmt.Sprintf("%s keepKinds=%v", name, keepKinds)
			checkNoHidden(t, name, []byte(ourANSI.ReplaceAllString(out, "")), true)
			checkShown(t, name, out)
			for i, line := range strings.Split(out, "\n") {
				// The summary wraps server text onto lines of its own; the
				// --verbose listing starts none with it.
				started := strings.HasPrefix(name, "terminal") && strings.HasPrefix(strings.TrimLeft(line, " :"), "error::NEWLINE")
				if workflowCommand(line) || started {
					t.Errorf("%s: line %d is a workflow command or was started by a newline of the server's: %q", name, i+1, line)
				}
			}
		}
		for name, out := range map[string]string{"markdown": Markdown(rep), "merged markdown": MergedMarkdown([]*report.Report{rep, rep})} {
			name = fmt.Sprintf("%s keepKinds=%v", name, keepKinds)
			checkNoHidden(t, name, []byte(out), true)
			checkMarkdownSafe(t, out)
			checkShown(t, name, out)
			prose := outsideCode(out)
			if open, closed := strings.Count(prose, "<details>"), strings.Count(prose, "</details>"); open != closed {
				t.Errorf("%s: %d <details> but %d </details>", name, open, closed)
			}
			for _, raw := range []string{"<img", "`tick`", "*bold*", "[link](", "\r", "\a"} {
				if strings.Contains(prose, raw) {
					t.Errorf("%s: %q outside code blocks", name, raw)
				}
			}
			if m := liveMention.FindString(prose); m != "" {
				t.Errorf("%s: live mention %q", name, m)
			}
			header := -1
			for i, line := range strings.Split(prose, "\n") {
				if strings.HasPrefix(line, "::error::NEWLINE") {
					t.Errorf("%s: line %d was started by the server: %q", name, i+1, line)
				}
				if !strings.HasPrefix(line, "|") {
					header = -1
					continue
				}
				if n := unescapedPipes(line); header < 0 {
					header = n
				} else if n != header {
					t.Errorf("%s: table row with %d cells' pipes, the header %d: %q", name, n, header, line)
				}
			}
		}
	}
}

// checkShown fails when out does not show the server's words (the test
// would prove nothing) or shows a [text.Untrusted] formatted by fmt,
// unescaped for any medium.
func checkShown(t *testing.T, name, out string) {
	t.Helper()
	if !strings.Contains(out, "RLO") || !strings.Contains(out, "NEWLINE") {
		t.Errorf("%s: the server's text is not shown", name)
	}
	if strings.Contains(out, "(text.Untrusted)") {
		t.Errorf("%s: server text formatted without a medium", name)
	}
}

// withEverySection adds to rep what the hand-built reports lack: protocol,
// concurrency and lifecycle checks (passed, failed, skipped), a box with
// its warning, the era spoken and why, and discovery notes.
func withEverySection(rep *report.Report) *report.Report {
	rep.Checks = append(rep.Checks,
		report.Check{ID: "envelope/a", Group: "envelope", Status: report.CheckPass, Expected: "an error", Detail: "fine"},
		report.Check{ID: "envelope/b", Group: "envelope", Status: report.CheckFail, Code: "envelope_ignored", Expected: "x", Detail: hostile},
		report.Check{ID: "envelope/c", Group: "envelope", Status: report.CheckSkip, Detail: "skipped " + hostile},
		report.Check{ID: "concurrency/t", Group: "concurrency", Status: report.CheckPass},
		report.Check{ID: "lifecycle/x", Group: report.CheckGroupLifecycle, Status: report.CheckSkip, Detail: "create failed"},
		report.Check{ID: "lifecycle/y", Group: report.CheckGroupLifecycle, Status: report.CheckFail, Code: "stale_read", Detail: "read after delete"},
	)
	rep.Lifecycle = &report.Lifecycle{Groups: 1, Summary: "1 group detected: " + hostile}
	rep.Run = &report.Run{Summary: "uid 65534", Containment: []string{"uid 65534 (nobody)", "landlock " + hostile}, Warning: "no box " + hostile}
	rep.Server.Era, rep.Server.EraReason = "legacy", "the server said so "+hostile
	rep.Discovery.Notes = []string{"n1", "n2 " + hostile, "n3", "n4"}
	return rep
}
