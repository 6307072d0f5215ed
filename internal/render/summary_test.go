package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// demoReport is the JSON report of `mcp-fuzz demo -o demo.json` (the
// binary's path written as mcp-fuzz).
func demoReport(t testing.TB) *report.Report {
	t.Helper()
	rep, err := report.ReadFile("testdata/demo.json")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestTerminalSummary: the demo's summary at the narrowest and widest
// layouts, and the hand-built reports (hostile text included) at the
// default one.
func TestTerminalSummary(t *testing.T) {
	for _, width := range []int{80, 120} {
		t.Run(fmt.Sprintf("demo/%d", width), func(t *testing.T) {
			golden(t, []byte(TerminalSummary(demoReport(t), TerminalOptions{Width: width})))
		})
	}
	t.Run("demo/outputs", func(t *testing.T) {
		out := TerminalSummary(demoReport(t), TerminalOptions{Width: 100, Outputs: []string{"demo.md", "demo.json"}})
		if !strings.Contains(out, "Full report: demo.md, demo.json") {
			t.Errorf("the files written are not named:\n%s", out)
		}
	})
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			golden(t, []byte(TerminalSummary(r.rep(), TerminalOptions{})))
		})
	}
}

// TestTerminalSummaryFits: no line is wider than the layout, at any
// terminal width, with colour or without; colour changes no text; no
// escape sequence but our own gets through.
func TestTerminalSummaryFits(t *testing.T) {
	all := append([]struct {
		name string
		rep  func() *report.Report
	}{{"demo", func() *report.Report { return demoReport(t) }}}, reports...)
	for _, r := range all {
		for _, width := range []int{0, 40, 80, 99, 100, 120, 300} {
			t.Run(fmt.Sprintf("%s/%d", r.name, width), func(t *testing.T) {
				want := TerminalWidth(width)
				out := TerminalSummary(r.rep(), TerminalOptions{Width: width})
				coloured := TerminalSummary(r.rep(), TerminalOptions{Width: width, Colour: true})
				if stripped := ourANSI.ReplaceAllString(coloured, ""); stripped != out {
					t.Errorf("colour changes the text:\n%s\n---\n%s", stripped, out)
				}
				if strings.Contains(out, "\x1b") || strings.Contains(ourANSI.ReplaceAllString(coloured, ""), "\x1b") {
					t.Error("foreign escape sequence in output")
				}
				for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if n := columns(line); n > want {
						t.Errorf("line %d is %d columns wide, over %d: %q", i+1, n, want, line)
					}
				}
			})
		}
	}
}

func TestTerminalWidth(t *testing.T) {
	for _, c := range []struct{ in, want int }{{0, 100}, {-1, 100}, {40, 80}, {80, 80}, {97, 97}, {120, 120}, {250, 120}} {
		if got := TerminalWidth(c.in); got != c.want {
			t.Errorf("TerminalWidth(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestWrapText(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want []string
	}{
		{"", 10, []string{""}},
		{"a bb ccc dddd", 6, []string{"a bb", "ccc", "dddd"}},
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
		{"日本語のテキスト", 6, []string{"日本語", "のテキ", "スト"}},
	} {
		got := wrapText(c.in, c.w)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapText(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}
