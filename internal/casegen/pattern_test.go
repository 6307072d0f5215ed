package casegen

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Patterns reggen (the generator before regexgen) panicked on or could not
// serve, and ordinary ones, give a matching string.
func TestPatternString(t *testing.T) {
	for _, p := range []string{
		`^[^\x00-\x7f]+@[a-z]{3}$`, `^abc$`, `^(foo|bar)+\d{3}-[A-F]{2,4}$`, `^\w+\.(md|txt)$`, `x?y*z`,
		`^[^/]+$`, `^\p{Greek}{2}$`, `(?i)^hello$`, `^[a-z][a-z0-9_]{0,31}$`, `^((a{10}){10}){10}$`,
	} {
		n := &node{pattern: p, minLen: -1, maxLen: -1}
		s, ok := newGenerator(&Schema{}, 1, MaxArgumentBytes).patternString(n, 0)
		if !ok || !regexp.MustCompile(p).MatchString(s) {
			t.Errorf("patternString(%q) = %q, %v", p, s, ok)
		}
	}
}

// The repetition limits go down to 0, so a tight maxLength is met by the
// shortest strings.
func TestPatternStringTightMaxLength(t *testing.T) {
	n := &node{pattern: `^a*b?(cd)*e$`, minLen: -1, maxLen: 1}
	for v := range 5 {
		if s, ok := newGenerator(&Schema{}, int64(v), MaxArgumentBytes).patternString(n, v); !ok || s != "e" {
			t.Errorf("variant %d: %q, %v", v, s, ok)
		}
	}
}

// Patterns the generator cannot serve fail fast instead of producing a
// string that does not match: casegen then falls back (a generator gap when
// nothing else fits).
func TestPatternStringFails(t *testing.T) {
	for _, p := range []string{
		`^a$b`, `a\bb`, `[^\x00-\x{10FFFF}]`, strings.Repeat(`a{1000}`, 3), strings.Repeat(`[a-z]{1000}`, 20), `^(?=x)`,
	} {
		n := &node{pattern: p, minLen: -1, maxLen: -1}
		if s, ok := newGenerator(&Schema{}, 1, MaxArgumentBytes).patternString(n, 0); ok {
			t.Errorf("patternString(%.40q) = %.40q (%d runes), want failure", p, s, utf8.RuneCountInString(s))
		}
	}
}

func TestPatternStringIsSeeded(t *testing.T) {
	n := &node{pattern: `^[a-z]{12}$`, minLen: -1, maxLen: -1}
	a, _ := newGenerator(&Schema{}, 1, MaxArgumentBytes).patternString(n, 0)
	b, _ := newGenerator(&Schema{}, 1, MaxArgumentBytes).patternString(n, 0)
	c, _ := newGenerator(&Schema{}, 2, MaxArgumentBytes).patternString(n, 0)
	if a != b || a == c {
		t.Errorf("seed 1: %q, %q; seed 2: %q", a, b, c)
	}
}
