package casegen

import (
	"regexp"
	"testing"
)

// reggen panics on a negated class without ASCII members; the panic is
// contained and Go's own parse tree gives the string instead.
func TestPatternFallbackWhenReggenFails(t *testing.T) {
	const p = `^[^\x00-\x7f]+@[a-z]{3}$`
	s, ok := shortestMatch(p)
	if !ok || !regexp.MustCompile(p).MatchString(s) {
		t.Errorf("shortestMatch = %q, %v", s, ok)
	}
	// Whatever reggen does with it, the generator's answer matches.
	n := &node{pattern: p, minLen: -1, maxLen: -1}
	g, ok := newGenerator(&Schema{}, 1, MaxArgumentBytes).patternString(n, 0)
	if !ok || !regexp.MustCompile(p).MatchString(g) {
		t.Errorf("patternString = %q, %v", g, ok)
	}
}

func TestShortestMatch(t *testing.T) {
	for _, p := range []string{`^abc$`, `^(foo|bar)+\d{3}-[A-F]{2,4}$`, `^\w+\.(md|txt)$`, `x?y*z`, `^[^/]+$`, `^\p{Greek}{2}$`, `(?i)^hello$`} {
		s, ok := shortestMatch(p)
		if !ok || !regexp.MustCompile(p).MatchString(s) {
			t.Errorf("shortestMatch(%q) = %q, %v", p, s, ok)
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
