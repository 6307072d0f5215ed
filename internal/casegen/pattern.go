package casegen

import (
	"errors"
	"hash/fnv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/regexgen"
)

// patternAttempts are the repetition limits (regexgen.Limits.MaxRepeat)
// tried in turn, each with patternSeeds seeds (one regexgen attempt each);
// the last, 0, gives every repetition its minimum, the shortest strings, for
// a tight maxLength.
var patternAttempts = []int{6, 3, 12, 1, 24, 2, 48, 0}

const patternSeeds = 3

// patternMismatches is how many candidates in a row may fail the match
// check (anchors or word boundaries the generator cannot satisfy, such as
// a$b) before patternString gives up: each check of a hostile pattern can
// cost tens of milliseconds.
const patternMismatches = 2 * patternSeeds

// patternMaxRunes bounds a generated pattern string: Go's regexp allows a
// repeat count up to 1000, and real patterns that force more are not worth
// the bytes. A longer minLength is met by padding (see padded).
const patternMaxRunes = 1024

// patternString generates a string that matches n.pattern (checked with Go's
// regexp, the engine the validator uses) and honours the length bounds.
// Patterns are read as written with Go's regexp syntax, as the validator
// reads them (see lenientRegexp): one Go cannot compile gets no string here.
func (g *generator) patternString(n *node, variant int) (string, bool) {
	re := g.regexp(n.pattern)
	if re == nil {
		return "", false
	}
	gen, err := regexgen.New(n.pattern)
	if err != nil {
		return "", false
	}
	h := fnv.New64a()
	h.Write([]byte(n.pattern))
	base := g.seed ^ int64(h.Sum64())
	mismatches := 0
	for i, limit := range patternAttempts {
		for j := 0; j < patternSeeds; j++ {
			seed := uint64(base + int64(variant*1000+i*10+j))
			s, err := gen.Generate(seed, regexgen.Limits{MaxRepeat: limit, MaxRunes: patternMaxRunes, Attempts: 1})
			if errors.Is(err, regexgen.ErrTooComplex) || errors.Is(err, regexgen.ErrBudget) {
				// Not worth another seed or limit: the program size does not
				// depend on them, and regexgen already falls back to minimum
				// repetitions before it runs out of budget.
				return "", false
			}
			if errors.Is(err, regexgen.ErrNoMatch) {
				if mismatches++; mismatches >= patternMismatches {
					return "", false
				}
				continue
			}
			mismatches = 0
			if err != nil {
				continue
			}
			if n.lengthOK(s) { // Generate checked that s matches
				return s, true
			}
			for _, cand := range padded(s, n.minLen)[1:] {
				// A padded candidate is matched only within the budget
				// the generator keeps: a server's pattern and minLength
				// must not buy an unbounded match.
				if len([]rune(cand)) <= gen.MatchableRunes() && n.lengthOK(cand) && re.MatchString(cand) {
					return cand, true
				}
			}
		}
	}
	return "", false
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
