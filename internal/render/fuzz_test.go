package render

import (
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

var liveMention = regexp.MustCompile(`@[\p{L}\p{N}]`)

// FuzzRenderers puts arbitrary server text into every place a report carries
// it and checks the promises of each renderer.
func FuzzRenderers(f *testing.F) {
	f.Add(hostile, "<!-- mcp-fuzz -->", "@everyone\x1b[2J", "```\n<!--")
	f.Add("a|b", "line1\nline2", "\x1b]0;t\x07", "\r\n|")
	f.Add(controls, "\u202e\x7f", "\u009b[31m\x00", "\u2066\u061c\u200f")
	f.Fuzz(func(t *testing.T, name, desc, detail, stderr string) {
		rep := gradedReport()
		rep.Server.Name = name
		rep.Critical = append(rep.Critical, detail)
		rep.Caps = append(rep.Caps, report.Cap{Grade: "C", Reason: desc})
		rep.Tools[0].Name = name
		rep.Tools[0].Cases[0].ID = detail
		rep.Tools[1].Cases[1].Crash.Stderr = stderr
		rep.Tools[1].Cases[1].Detail = detail
		rep.Tools = append(rep.Tools, report.Tool{Name: desc, SkipReason: detail})
		rep.Lint = append(rep.Lint, report.Lint{Code: name, Severity: "warning", Tool: name, Pointer: desc, Message: detail, Hint: stderr})
		rep.Summary = report.Summarize(rep.Tools)
		rep.Findings = findingsFor(rep)
		for i := range rep.Findings {
			rep.Findings[i].Message += detail
			rep.Findings[i].Reproducer.Shell += stderr
		}

		md := Markdown(rep)
		if strings.Contains(md, "<!--") || strings.Contains(md, "-->") || strings.Contains(md, "\x1b") {
			t.Fatal("comment marker or ESC in Markdown")
		}
		if m := liveMention.FindString(outsideCode(md)); m != "" {
			t.Fatalf("live mention %q in Markdown", m)
		}
		header := -1
		for _, line := range strings.Split(outsideCode(md), "\n") {
			if !strings.HasPrefix(line, "|") {
				header = -1
				continue
			}
			if n := unescapedPipes(line); header < 0 {
				header = n
			} else if n != header {
				t.Fatalf("table row with %d pipes, header %d: %q", n, header, line)
			}
		}

		if out, err := JUnit(rep); err != nil {
			t.Fatal(err)
		} else if err := xml.Unmarshal(out, new(junitSuites)); err != nil {
			t.Fatalf("JUnit not valid XML: %v", err)
		}
		if out, err := SARIF(rep, SARIFOptions{}); err != nil || !json.Valid(out) {
			t.Fatalf("SARIF: %v", err)
		} else {
			checkNoHidden(t, "SARIF", out, true)
		}
		if out, err := JSON(rep); err != nil {
			t.Fatal(err)
		} else {
			checkNoHidden(t, "JSON", out, true)
			var back report.Report
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("JSON report does not decode: %v", err)
			}
			var want string // name as encoding/json stores it (invalid UTF-8 replaced)
			plain, _ := json.Marshal(name)
			_ = json.Unmarshal(plain, &want)
			if back.Server.Name != want {
				t.Fatalf("JSON round trip: server name %q, want %q", back.Server.Name, want)
			}
		}
		term := ourANSI.ReplaceAllString(Terminal(rep, true), "")
		if strings.ContainsAny(term, "\x1b\x07\r") {
			t.Fatal("escape or control character in terminal output")
		}
	})
}
