// Package escape makes server-supplied text safe to embed in Markdown, XML and
// terminal output. Every function strips terminal escape sequences and control
// characters and truncates to a number of runes, so no tool name, description,
// error text or stderr tail can break a table, forge a hidden comment marker,
// ping people or repaint a terminal.
package escape

import (
	"encoding/xml"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks truncated text.
const Ellipsis = "…"

const (
	zwj  = "\u200d" // zero-width joiner, breaks @mentions
	zwsp = "\u200b" // zero-width space, breaks comment markers in code
)

// MarkdownInline renders s as one line of Markdown text that is safe in a
// table cell, a heading or a list item. Line breaks become spaces, escape
// sequences and control characters are removed, the Markdown punctuation
// \ ` * _ [ ] | # ~ $ is backslash-escaped, < > & become entities (so neither
// HTML nor "<!--" / "-->" comment markers survive), and a zero-width joiner
// after every "@" keeps @mentions from pinging anyone. At most max runes of s
// are kept (max <= 0 means no limit); a cut is marked with "…".
func MarkdownInline(s string, max int) string {
	s = truncate(clean(s, false), max)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '#', '~', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("@" + zwj)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MarkdownCode renders s as a fenced code block (fence lines included, no
// trailing newline). See [MarkdownCodeLang].
func MarkdownCode(s string, max int) string { return MarkdownCodeLang(s, "", max) }

// MarkdownCodeLang renders s as a fenced code block with the info string lang.
// The fence is a run of backticks longer than any run inside s, so s cannot
// close the block early. Escape sequences and control characters other than
// newline and tab are removed, and "<!--" and "-->" are broken with a
// zero-width space, because comment markers are searched for in the raw text
// even inside code blocks. At most max runes of s are kept (max <= 0 means no
// limit); a cut is marked with "…".
func MarkdownCodeLang(s, lang string, max int) string {
	s = truncate(clean(s, true), max)
	s = strings.NewReplacer("<!--", "<!-"+zwsp+"-", "-->", "--"+zwsp+">").Replace(s)
	// The replacement can leave "--" + ">" behind for inputs such as
	// "--->"; repeat until stable.
	for strings.Contains(s, "<!--") || strings.Contains(s, "-->") {
		s = strings.NewReplacer("<!--", "<!-"+zwsp+"-", "-->", "--"+zwsp+">").Replace(s)
	}
	fence := strings.Repeat("`", max3(longestRun(s, '`')+1))
	lang = strings.Map(func(r rune) rune {
		if r == '`' || r == '~' || r <= ' ' {
			return -1
		}
		return r
	}, clean(lang, false))
	return fence + lang + "\n" + s + "\n" + fence
}

// Terminal renders s as one line of plain text for a terminal: escape
// sequences and control characters are removed, line breaks and tabs become
// spaces. At most max runes are kept (max <= 0 means no limit).
func Terminal(s string, max int) string {
	return truncate(clean(s, false), max)
}

// XMLText escapes s as XML character data (also valid in attribute values),
// after removing escape sequences and characters that XML 1.0 forbids. At most
// max runes of s are kept (max <= 0 means no limit).
func XMLText(s string, max int) string {
	var b strings.Builder
	// EscapeText writes to a strings.Builder, which never fails.
	_ = xml.EscapeText(&b, []byte(XMLClean(s, max)))
	return b.String()
}

// XMLClean returns s without escape sequences and characters that XML 1.0
// forbids, cut to max runes, but not yet escaped: use it for values that
// encoding/xml will escape. Newlines and tabs are kept.
func XMLClean(s string, max int) string {
	return truncate(clean(s, true), max)
}

// clean removes terminal escape sequences, control characters, bidirectional
// overrides and invalid UTF-8. With keepLines, newline and tab survive (CR LF
// becomes LF); otherwise they become spaces.
func clean(s string, keepLines bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x1b {
			i += escapeLen(s[i:])
			continue
		}
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue
			}
			if keepLines {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		case r == '\n' || r == '\t':
			if keepLines {
				b.WriteRune(r)
			} else {
				b.WriteByte(' ')
			}
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			// C0 and C1 controls, DEL.
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			// Bidirectional controls ("trojan source").
		case r == 0xfffe || r == 0xffff || r >= 0xd800 && r <= 0xdfff:
			// Not characters; invalid in XML.
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeLen returns the length of the escape sequence at the start of s,
// which begins with ESC: CSI (ESC [ … final byte), string sequences (OSC, DCS,
// SOS, PM, APC, ended by BEL or ESC \) and two-character sequences.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
			if s[i] < 0x20 || s[i] > 0x7e {
				return i // malformed: drop what we saw, keep the rest
			}
		}
		return len(s)
	case ']', 'P', 'X', '^', '_':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b {
				if i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
				return i
			}
		}
		return len(s)
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	return 1 + size
}

// truncate keeps at most max runes of s, ending a cut with Ellipsis.
func truncate(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + Ellipsis
		}
		n++
	}
	return s
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			if run > best {
				best = run
			}
		} else {
			run = 0
		}
	}
	return best
}

func max3(n int) int {
	if n < 3 {
		return 3
	}
	return n
}
