package text

import (
	"fmt"
	"strings"
	"testing"
)

const hostile = "evil|name </details><img src=x> `x` @everyone \x1b[31mred\x1b[0m \u202egnp\nsecond ##[error]x"

// TestFormatHidesText: fmt's verbs print a marker, never the text.
func TestFormatHidesText(t *testing.T) {
	u := New(hostile, 0)
	for _, out := range []string{fmt.Sprint(u), fmt.Sprintf("%s|%v|%q|%+v|%#v|%x", u, u, u, u, u, u), fmt.Sprint([]Untrusted{u})} {
		if strings.Contains(out, "evil") || strings.Contains(out, "\x1b") {
			t.Errorf("fmt shows the text: %q", out)
		}
		if !strings.Contains(out, "(text.Untrusted)") {
			t.Errorf("no marker: %q", out)
		}
	}
}

// TestMediaEscape: each medium escapes the text for itself.
func TestMediaEscape(t *testing.T) {
	u := New(hostile, 0)
	term := Terminal(u)
	for _, bad := range []string{"\x1b", "\u202e", "\n", "##["} {
		if strings.Contains(term, bad) {
			t.Errorf("terminal text holds %q: %q", bad, term)
		}
	}
	md := Markdown(u)
	for _, bad := range []string{"\x1b", "\u202e", "\n", "</details>", "<img", "@everyone"} {
		if strings.Contains(md, bad) {
			t.Errorf("Markdown text holds %q: %q", bad, md)
		}
	}
	for _, c := range []byte("|`[#") {
		if bareByte(md, c) {
			t.Errorf("Markdown text holds %q without a backslash: %q", c, md)
		}
	}
	code := u.MarkdownCode("text")
	if !strings.HasPrefix(code, "```text\n") || strings.Contains(code, "\x1b") {
		t.Errorf("code block: %q", code)
	}
}

// TestSprintf: untrusted arguments are escaped, the others left alone.
func TestSprintf(t *testing.T) {
	got := Markdown.Sprintf("| %s | %d | %s |", New("a|b", 0), 7, "**ours**")
	if want := `| a\|b | 7 | **ours** |`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var b strings.Builder
	Terminal.Fprintf(&b, "%-6s|", New("x\x1b[2Jy", 0))
	if got, want := b.String(), "xy    |"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLengths(t *testing.T) {
	u := New("abcdef", 4)
	if got := u.Terminal(); got != "abc…" {
		t.Errorf("New(_, 4) = %q", got)
	}
	if got := u.Cut(0).Terminal(); got != "abcdef" {
		t.Errorf("Cut(0) = %q", got)
	}
	if got := u.Cut(2).Markdown(); got != "a…" {
		t.Errorf("Cut(2) = %q", got)
	}
	if got := Join(", ", New("a", 1), New("bcd", 1)).Terminal(); got != "a, bcd" {
		t.Errorf("Join = %q", got)
	}
	if got := New("", 5).Or("—").Terminal(); got != "—" {
		t.Errorf("Or = %q", got)
	}
	if got := New("not measured: x", 0).TrimPrefix("not measured: ").Terminal(); got != "x" {
		t.Errorf("TrimPrefix = %q", got)
	}
	if u := New("日本", 0); u.Len() != 6 || u.Runes() != 2 || u.Empty() || !New("", 3).Empty() {
		t.Errorf("Len %d, Runes %d, Empty %v", u.Len(), u.Runes(), u.Empty())
	}
}

// bareByte reports whether s holds c not escaped by a backslash.
func bareByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case c:
			return true
		}
	}
	return false
}
