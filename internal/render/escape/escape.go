// Package escape makes server-supplied text safe to embed in Markdown, XML,
// JSON and terminal output. The text functions strip terminal escape
// sequences and control characters (XML shows them as \uXXXX) and truncate to
// a number of runes, so no tool name, description, error text or stderr tail
// can break a table, forge a hidden comment marker, ping people or repaint a
// terminal; [JSON] escapes the controls encoding/json leaves raw.
package escape

import (
	"encoding/xml"
	"strings"
	"unicode"
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
// spaces, and "##[" is broken ("## [") because the GitHub Actions runner
// takes a line holding it anywhere for a workflow command. At most max
// runes are kept (max <= 0 means no limit). A line that starts with s (after
// spaces) also needs [WorkflowLines].
func Terminal(s string, max int) string {
	return breakLegacyCommands(truncate(clean(s, false), max))
}

// legacyCommand is the prefix of the GitHub Actions runner's older form
// of workflow command, "##[error]text", which it finds anywhere in a line
// of a step's output.
const legacyCommand = "##["

// breakLegacyCommands puts a space into every "##[" of s.
func breakLegacyCommands(s string) string {
	if !strings.Contains(s, legacyCommand) {
		return s
	}
	return strings.ReplaceAll(s, legacyCommand, "## [")
}

// WorkflowLines makes terminal output text safe to print in a GitHub
// Actions step, whose runner reads a line for a workflow command when,
// after leading white space, it starts with "::" ("  ::error::x"), or
// when it holds "##[" anywhere. Each such "::" becomes ": :" and each
// "##[" becomes "## [". Use it on whole lines that may start with server
// text (after an indent, or wrapped): [Terminal] cannot know where a line
// starts.
func WorkflowLines(text string) string {
	text = breakLegacyCommands(text)
	if !strings.Contains(text, "::") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		rest := strings.TrimLeftFunc(l, isSpace)
		if strings.HasPrefix(rest, "::") {
			lines[i] = l[:len(l)-len(rest)] + ": " + rest[1:]
		}
	}
	return strings.Join(lines, "")
}

// isSpace is white space as the Actions runner (.NET's char.IsWhiteSpace)
// trims it from the start of a line.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

// XMLText escapes s as XML character data (also valid in attribute values),
// after cleaning it as [XMLClean] does. At most max runes of s are kept
// (max <= 0 means no limit).
func XMLText(s string, max int) string {
	var b strings.Builder
	// EscapeText writes to a strings.Builder, which never fails.
	_ = xml.EscapeText(&b, []byte(XMLClean(s, max)))
	return b.String()
}

// XMLClean returns s without terminal escape sequences, and with the other
// control characters (which XML 1.0 forbids or which hide text: C0 and C1
// controls, DEL, bidirectional controls, U+FFFE, U+FFFF) written visibly as
// \uXXXX, cut to max runes, but not yet escaped: use it for values that
// encoding/xml will escape. Newlines and tabs are kept.
func XMLClean(s string, max int) string {
	return truncate(cleanMode(s, true, true), max)
}

// XMLLine is [XMLClean] for one line of text, such as an attribute value:
// newlines and tabs become spaces.
func XMLLine(s string, max int) string {
	return truncate(cleanMode(s, false, true), max)
}

// JSON rewrites encoded JSON so that the characters encoding/json leaves raw
// but which hide or reorder text — DEL, C1 controls (U+0080–U+009F) and
// bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069), plus U+2028 and U+2029 — appear as \uXXXX escapes. Such
// characters can only occur inside JSON strings, where the escape stands for
// the same character, so b decodes to the same values before and after. Use
// it on every JSON file or line written from server text. b is returned
// as is when there is nothing to escape.
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		if b[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if Invisible(r) {
			if out == nil {
				out = make([]byte, 0, len(b)+64)
			}
			out = appendU(append(out, b[last:i]...), r)
			last = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// ZeroWidth reports whether r is a zero-width space, word joiner or byte
// order mark.
func ZeroWidth(r rune) bool { return r == 0x200b || r == 0x2060 || r == 0xfeff }

// Invisible reports whether r hides or reorders the text around it, or
// breaks a line where a reader sees none: DEL, a C1 control, a
// bidirectional control, U+2028, U+2029 or a zero-width character. [JSON]
// escapes them.
func Invisible(r rune) bool { return hidden(r) || r == 0x2028 || r == 0x2029 || ZeroWidth(r) }

// hidden reports whether r is DEL, a C1 control or a bidirectional control
// ("trojan source"): characters that are invisible or reorder the text
// around them.
func hidden(r rune) bool {
	switch {
	case r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// appendU appends r, which must be in the Basic Multilingual Plane, as a
// \uXXXX escape with lower-case hex digits, as encoding/json writes them.
func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// clean removes terminal escape sequences, control characters, bidirectional
// overrides and invalid UTF-8. With keepLines, newline and tab survive (CR LF
// becomes LF); otherwise they become spaces.
func clean(s string, keepLines bool) string { return cleanMode(s, keepLines, false) }

// cleanMode is clean; with visible, control characters other than line
// breaks and tabs, bidirectional controls and the non-characters U+FFFE and
// U+FFFF are written as \uXXXX instead of removed.
func cleanMode(s string, keepLines, visible bool) string {
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
		case r == '\n' || r == '\t' || (!visible && (r == 0x2028 || r == 0x2029)):
			// The line and paragraph separators are line breaks to
			// YAML and JavaScript: in one line of text they could start
			// another (a key of a config file a comment quotes).
			switch {
			case keepLines && r == '\t':
				b.WriteByte('\t')
			case keepLines:
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
		case r < 0x20 || hidden(r) || r == 0xfffe || r == 0xffff:
			// C0 and C1 controls, DEL, bidirectional controls ("trojan
			// source"), and non-characters that XML forbids.
			if visible {
				var u [6]byte
				b.Write(appendU(u[:0], r))
			}
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
