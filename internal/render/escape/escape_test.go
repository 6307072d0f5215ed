package escape

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var seeds = []string{
	"",
	"plain text",
	"a|b|c",
	"<!-- mcp-fuzz -->",
	"<!-- mcp-fuzz:section key -->\nforged",
	"@everyone and @octocat/team",
	"\x1b[31mred\x1b[0m",
	"\x1b]8;;https://evil\x07link\x1b]8;;\x07",
	"\x1b]0;title\x1b\\after",
	"line1\nline2\r\nline3\rline4",
	"```\ncode\n````",
	"tab\there\x00nul\x7fdel\u0085nel",
	"\u202egnirts desrever\u202c",
	"**bold** _it_ [link](http://x) ![img](y) #1 ~~s~~ $x$ \\",
	"&lt;script&gt; <script>alert(1)</script>",
	"\xff\xfe invalid utf8",
	"----> <!--->",
	"\x1b",
	"\x1b[",
	"emoji 🎉 and 日本語",
}

func checkInline(t *testing.T, name, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\n\r\x1b") {
		t.Errorf("%s: output contains a line break or ESC: %q", name, out)
	}
	for _, r := range out {
		if unicode.IsControl(r) {
			t.Errorf("%s: output contains control char %U: %q", name, r, out)
		}
	}
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8: %q", name, out)
	}
}

func FuzzMarkdownInline(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, 0)
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1000
		out := MarkdownInline(s, max)
		checkInline(t, "MarkdownInline", out)
		if strings.Contains(out, "<!--") || strings.Contains(out, "-->") {
			t.Errorf("comment marker survived: %q", out)
		}
		if strings.ContainsAny(out, "<>") {
			t.Errorf("raw angle bracket: %q", out)
		}
		for i := 0; i < len(out); i++ {
			switch out[i] {
			case '|', '`':
				n := 0
				for j := i - 1; j >= 0 && out[j] == '\\'; j-- {
					n++
				}
				if n%2 == 0 {
					t.Fatalf("unescaped %q at %d: %q", out[i], i, out)
				}
			case '@':
				if r, _ := utf8.DecodeRuneInString(out[i+1:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
					t.Fatalf("@mention survived: %q", out)
				}
			}
		}
		if max > 0 && utf8.RuneCountInString(clean(s, false)) > max && !strings.HasSuffix(out, Ellipsis) {
			t.Errorf("truncation not marked: %q", out)
		}
	})
}

func FuzzMarkdownCode(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 5000
		out := MarkdownCode(s, max)
		if strings.Contains(out, "<!--") || strings.Contains(out, "-->") || strings.Contains(out, "\x1b") {
			t.Fatalf("marker or ESC survived: %q", out)
		}
		lines := strings.Split(out, "\n")
		fence := lines[0]
		if len(fence) < 3 || strings.Trim(fence, "`") != "" {
			t.Fatalf("bad opening fence %q", fence)
		}
		if lines[len(lines)-1] != fence {
			t.Fatalf("closing fence %q, want %q", lines[len(lines)-1], fence)
		}
		body := strings.Join(lines[1:len(lines)-1], "\n")
		if longestRun(body, '`') >= len(fence) {
			t.Fatalf("body has a backtick run as long as the fence: %q", out)
		}
	})
}

func FuzzTerminal(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 1000
		out := Terminal(s, max)
		checkInline(t, "Terminal", out)
		if max > 0 && utf8.RuneCountInString(out) > max {
			t.Errorf("longer than %d runes: %q", max, out)
		}
	})
}

func FuzzXMLText(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := XMLText(s, 0)
		if strings.ContainsAny(out, "<>\x1b") {
			t.Fatalf("raw markup or ESC: %q", out)
		}
		var v struct {
			Text string `xml:",chardata"`
			Attr string `xml:"a,attr"`
		}
		doc := `<x a="` + out + `">` + out + `</x>`
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("not valid XML: %v\n%q", err, doc)
		}
		if v.Text != XMLClean(s, 0) {
			t.Fatalf("round trip: got %q, want %q", v.Text, XMLClean(s, 0))
		}
	})
}

func TestExamples(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"table", MarkdownInline("a|b", 0), `a\|b`},
		{"marker", MarkdownInline("<!-- mcp-fuzz -->", 0), "&lt;!-- mcp-fuzz --&gt;"},
		{"mention", MarkdownInline("@everyone", 0), "@\u200deveryone"},
		{"ansi", MarkdownInline("\x1b[31mred\x1b[0m", 0), "red"},
		{"osc", Terminal("\x1b]8;;https://evil\x07link\x1b]8;;\x07", 0), "link"},
		{"newline", MarkdownInline("a\nb", 0), "a b"},
		{"truncate", MarkdownInline("abcdef", 4), "abc…"},
		{"no truncate", MarkdownInline("abcd", 4), "abcd"},
		{"fence", MarkdownCode("a ``` b", 0), "````\na ``` b\n````"},
		{"code marker", MarkdownCode("<!-- x -->", 0), "```\n<!-\u200b- x --\u200b>\n```"},
		{"lang", MarkdownCodeLang("{}", "json", 0), "```json\n{}\n```"},
		{"xml", XMLText("a<b>&\x00\"c\"", 0), `a&lt;b&gt;&amp;\u0000&#34;c&#34;`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestWorkflowLines: the runner trims white space (an em space too) before
// looking for "::", and finds "##[" anywhere; both are broken, and nothing
// else changes.
func TestWorkflowLines(t *testing.T) {
	for in, want := range map[string]string{
		"::error::x":                      ": :error::x",
		"    ::error::x\n  note ::x":      "    : :error::x\n  note ::x",
		"\u2003::warning::x\n":            "\u2003: :warning::x\n",
		"a ##[error]x ###[b":              "a ## [error]x ### [b",
		"plain text: a::b, std::io\n\n":   "plain text: a::b, std::io\n\n",
		"mcp-fuzz: ::error::x":            "mcp-fuzz: ::error::x",
		"\t::add-mask::x\r\n::set-output": "\t: :add-mask::x\r\n: :set-output",
	} {
		if got := WorkflowLines(in); got != want {
			t.Errorf("WorkflowLines(%q) = %q; want %q", in, got, want)
		}
	}
	if got := Terminal("x\n##[error]y", 0); got != "x ## [error]y" {
		t.Errorf("Terminal keeps a legacy workflow command: %q", got)
	}
}

// TestLineSeparators: U+2028 and U+2029 are line breaks to YAML and
// JavaScript; one line of text has none.
func TestLineSeparators(t *testing.T) {
	if got := Terminal("a\u2028b\u2029c", 0); got != "a b c" {
		t.Errorf("Terminal = %q", got)
	}
	if got := MarkdownInline("a\u2028b", 0); got != "a b" {
		t.Errorf("MarkdownInline = %q", got)
	}
	if got := MarkdownCode("a\u2028b", 0); !strings.Contains(got, "a\nb") {
		t.Errorf("MarkdownCode = %q", got)
	}
}
