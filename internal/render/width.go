package render

import (
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
)

// Widths of the terminal summary ([TerminalSummary]), in columns.
const (
	MinTerminalWidth     = 80
	MaxTerminalWidth     = 120
	DefaultTerminalWidth = 100 // when the width is not known
)

// TerminalWidth is the width the terminal summary is laid out for, given
// the width of the terminal (0 or less: unknown): clamped to 80..120, 100
// when unknown. Narrower terminals wrap, wider ones get lines a reader can
// still follow.
func TerminalWidth(columns int) int {
	if columns <= 0 {
		return DefaultTerminalWidth
	}
	return min(max(columns, MinTerminalWidth), MaxTerminalWidth)
}

// cells measures text in terminal columns: East Asian wide characters take
// two, combining marks none. Ambiguous characters (·, ×, —, …) count as
// one whatever the locale says, so output does not depend on the
// environment.
var cells = &runewidth.Condition{EastAsianWidth: false}

// columns is the number of columns s takes; s holds no escape sequence.
func columns(s string) int { return cells.StringWidth(s) }

// fitText cuts s to at most w columns, marking a cut with "…", never
// inside a character or grapheme cluster.
func fitText(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return cells.Truncate(s, w, escape.Ellipsis)
}

// padText pads s with spaces to w columns (a longer s is left as it is).
func padText(s string, w int) string {
	if n := columns(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// wrapText breaks s into lines of at most w columns at spaces; a word
// longer than a line is cut into pieces. s is one line of clean text.
func wrapText(s string, w int) []string {
	w = max(w, 1)
	var lines []string
	line, lineW := "", 0
	for _, word := range strings.Fields(s) {
		ww := columns(word)
		for ww > w {
			// An overlong word: fill the line, then go on with the rest.
			if lineW > 0 {
				lines = append(lines, line)
				line, lineW = "", 0
			}
			head := cells.Truncate(word, w, "")
			lines = append(lines, head)
			word = word[len(head):]
			ww = columns(word)
		}
		switch {
		case word == "":
		case lineW == 0:
			line, lineW = word, ww
		case lineW+1+ww <= w:
			line, lineW = line+" "+word, lineW+1+ww
		default:
			lines = append(lines, line)
			line, lineW = word, ww
		}
	}
	if lineW > 0 || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
