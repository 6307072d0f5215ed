// Package text keeps text that came from the server under test apart from
// the program's own words, so that a renderer cannot write it out
// unescaped.
//
// An [Untrusted] holds such text — a tool's name, an error message, a
// stderr tail, anything a report file says — with the number of runes a
// report shows of it. Its content is unexported: the only ways to put it
// into output are its methods for each medium ([Untrusted.Terminal],
// [Untrusted.Markdown], [Untrusted.MarkdownCode]), which call package
// escape, and a [Medium]'s Sprintf. Formatted with package fmt directly,
// it prints a marker, never the text.
package text

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
)

// Untrusted is text from the server under test or from a report file. The
// zero value is empty text.
type Untrusted struct {
	s   string
	max int // runes shown at most; 0: all
}

// New is s as untrusted text, shown at most n runes (n <= 0: all of it; a
// cut is marked with "…").
func New(s string, n int) Untrusted { return Untrusted{s: s, max: max(n, 0)} }

// All is each of ss as untrusted text, shown at most n runes.
func All(ss []string, n int) []Untrusted {
	out := make([]Untrusted, len(ss))
	for i, s := range ss {
		out[i] = New(s, n)
	}
	return out
}

// Join joins parts with sep into one text, shown whole: the parts' own
// lengths do not apply (see [Untrusted.Cut]).
func Join(sep string, parts ...Untrusted) Untrusted {
	ss := make([]string, len(parts))
	for i, p := range parts {
		ss[i] = p.s
	}
	return Untrusted{s: strings.Join(ss, sep)}
}

// Cut is u shown at most n runes instead (n <= 0: all of it), for a layout
// that shows more or less of it than a report does.
func (u Untrusted) Cut(n int) Untrusted { return New(u.s, n) }

// Or is u, or alt when u is empty.
func (u Untrusted) Or(alt string) Untrusted {
	if u.s == "" {
		u.s = alt
	}
	return u
}

// TrimPrefix is u without a leading prefix.
func (u Untrusted) TrimPrefix(prefix string) Untrusted {
	u.s = strings.TrimPrefix(u.s, prefix)
	return u
}

// ReplaceAll is u with every old replaced by new.
func (u Untrusted) ReplaceAll(old, new string) Untrusted {
	u.s = strings.ReplaceAll(u.s, old, new)
	return u
}

// Empty reports whether u holds no text at all (before any escaping).
func (u Untrusted) Empty() bool { return u.s == "" }

// Len is the length of u in bytes, before any escaping.
func (u Untrusted) Len() int { return len(u.s) }

// Runes is the number of runes of u, before any escaping.
func (u Untrusted) Runes() int { return utf8.RuneCountInString(u.s) }

// Terminal is u as one line of text for a terminal ([escape.Terminal]).
func (u Untrusted) Terminal() string { return escape.Terminal(u.s, u.max) }

// Markdown is u as one line of Markdown text, safe in a table cell, a
// heading or a list item ([escape.MarkdownInline]).
func (u Untrusted) Markdown() string { return escape.MarkdownInline(u.s, u.max) }

// MarkdownCode is u as a fenced Markdown code block with the info string
// lang, fence lines included ([escape.MarkdownCodeLang]).
func (u Untrusted) MarkdownCode(lang string) string {
	return escape.MarkdownCodeLang(u.s, lang, u.max)
}

// Format writes a marker in place of u: untrusted text reaches output only
// escaped for a medium, never through fmt's verbs.
func (u Untrusted) Format(f fmt.State, verb rune) { fmt.Fprintf(f, "%%!%c(text.Untrusted)", verb) }

// Medium is how one output medium writes untrusted text:
// [Untrusted.Terminal] or [Untrusted.Markdown].
type Medium func(Untrusted) string

// Terminal and Markdown are the media of the terminal and Markdown
// reports.
var (
	Terminal Medium = Untrusted.Terminal
	Markdown Medium = Untrusted.Markdown
)

// Sprintf formats as [fmt.Sprintf] does, each Untrusted among args
// written as m writes it: the format and the other arguments are the
// caller's own.
func (m Medium) Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, m.args(args)...)
}

// Fprintf is [Medium.Sprintf] to w.
func (m Medium) Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, m.args(args)...)
}

// args is args with each Untrusted replaced by its text in m.
func (m Medium) args(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if u, ok := a.(Untrusted); ok {
			a = m(u)
		}
		out[i] = a
	}
	return out
}
