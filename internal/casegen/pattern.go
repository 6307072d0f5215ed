package casegen

import (
	"hash/fnv"
	"regexp/syntax"
	"strings"

	"github.com/lucasjones/reggen"
)

// patternAttempts are the repetition limits tried in turn with reggen.
var patternAttempts = []int{6, 3, 12, 1, 24, 2, 48}

// patternString generates a string that matches n.pattern (checked with Go's
// regexp, the engine the validator uses) and honours the length bounds.
func (g *generator) patternString(n *node, variant int) (string, bool) {
	re := g.regexp(n.pattern)
	if re == nil {
		return "", false
	}
	h := fnv.New64a()
	h.Write([]byte(n.pattern))
	base := g.seed ^ int64(h.Sum64())
	for i, limit := range patternAttempts {
		for j := 0; j < 3; j++ {
			s, ok := reggenString(n.pattern, base+int64(variant*1000+i*10+j), limit)
			if !ok {
				continue
			}
			for _, cand := range padded(s, n.minLen) {
				if re.MatchString(cand) && n.lengthOK(cand) {
					return cand, true
				}
			}
		}
	}
	if s, ok := shortestMatch(n.pattern); ok { // reggen failed: e.g. a class with no ASCII member
		for _, cand := range padded(s, n.minLen) {
			if re.MatchString(cand) && n.lengthOK(cand) {
				return cand, true
			}
		}
	}
	return "", false
}

// shortestMatch builds a short string for pattern from Go's own parse tree:
// no repetition beyond the minimum, the first alternative, and from each
// character class a letter or digit when it has one.
func shortestMatch(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(re *syntax.Regexp, depth int)
	walk = func(re *syntax.Regexp, depth int) {
		if depth > 100 || b.Len() > 1<<16 {
			return
		}
		switch re.Op {
		case syntax.OpLiteral:
			b.WriteString(string(re.Rune))
		case syntax.OpCharClass:
			b.WriteRune(classRune(re.Rune))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture, syntax.OpPlus:
			walk(re.Sub[0], depth+1)
		case syntax.OpRepeat:
			for i := 0; i < re.Min; i++ {
				walk(re.Sub[0], depth+1)
			}
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub, depth+1)
			}
		case syntax.OpAlternate:
			walk(re.Sub[0], depth+1)
		}
	}
	walk(re, 0)
	return b.String(), true
}

// classRune picks a member of a character class (pairs of lo, hi runes),
// preferring ASCII letters and digits, then any printable rune.
func classRune(ranges []rune) rune {
	for _, want := range []string{"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "-_.~ "} {
		for _, r := range want {
			for i := 0; i+1 < len(ranges); i += 2 {
				if r >= ranges[i] && r <= ranges[i+1] {
					return r
				}
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if r := max(ranges[i], 0x21); r <= ranges[i+1] {
			return r
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// padded returns s, then s extended to minLen at the end and at the start
// (which keeps a match for patterns not anchored on that side).
func padded(s string, minLen int) []string {
	out := []string{s}
	if short := minLen - len([]rune(s)); short > 0 && minLen <= 1<<16 {
		pad := strings.Repeat("x", short)
		out = append(out, s+pad, pad+s)
	}
	return out
}

// reggenString runs reggen with a fixed seed. reggen can panic on some
// character classes (a negated class with no printable member), so a panic
// counts as failure.
func reggenString(pattern string, seed int64, limit int) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	gen, err := reggen.NewGenerator(pattern) // parsed anew each time: Generate mutates the tree
	if err != nil {
		return "", false
	}
	gen.SetSeed(seed)
	return gen.Generate(limit), true
}
