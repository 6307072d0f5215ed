// Package textcut shortens server text for reports and for the code that
// reads it: by bytes without splitting a character, or to an excerpt of
// one line.
package textcut

import (
	"strings"
	"unicode/utf8"
)

// UTF8 returns at most n bytes of s, not splitting a character.
func UTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Excerpt shortens s to at most n runes on one line: its runs of white
// space are one space, and a cut is marked with "…".
func Excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
