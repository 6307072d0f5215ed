package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"reflect"
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
