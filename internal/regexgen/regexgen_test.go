package regexgen

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustNew(t testing.TB, p string) *Generator {
	t.Helper()
	g, err := New(p)
	if err != nil {
		t.Fatalf("New(%q): %v", p, err)
	}
	return g
}

// Ordinary patterns give a matching string for every seed and repeat limit,
// and the same string for the same seed.
func TestGenerateMatches(t *testing.T) {
	patterns := []string{
		`^abc$`, `^[A-Z]{3}-[0-9]{4}$`, `^(feat|fix)\([a-z]+\): \w{2,}$`, `^[^/]+\.md$`,
		`^[^\x00-\x7f]{2}$`, `^[^\x00-\x7f]+@[a-z]{3}$`, `^\p{Greek}{2}$`, `(?i)^hello$`,
		`^[a-z][a-z0-9_]{0,31}$`, `^[A-Za-z0-9-]+$`, `^\s+$`, `^\S*$`, `x?y*z`, `^\w+\.(md|txt)$`,
		`\bfoo\b`, `^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$`,
		`^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`,
		`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`,
		`^[\w.+-]+@[\w-]+\.[\w.]+$`, `(?s)^.{3}$`, `^.*$`, `^$`, ``, `^\Q.*\E$`, `^[\x00-\x1f]$`,
		`^[\x{E000}-\x{F8FF}]$`, `^[\x{D7FF}-\x{E000}]{4}$`, `^[\x{D800}-\x{E000}]$`, `^[\x{1F600}-\x{1F64F}]{3}$`, `^\P{L}{3}$`, `^[^\x00-\x7f\pL]+$`,
		`a|[^\x00-\x{10FFFF}]`, `^((a{10}){10}){10}$`, `(?m)^a$\n^b$`, `\Ba\B|a`, `(?U)a+b*?`,
	}
	for _, p := range patterns {
		g := mustNew(t, p)
		re := regexp.MustCompile(p)
		for _, rep := range []int{0, 1, 3, 12, 48} {
			for seed := range uint64(5) {
				lim := Limits{MaxRepeat: rep}
				s, err := g.Generate(seed, lim)
				if err != nil || !re.MatchString(s) || utf8.RuneCountInString(s) > DefaultMaxRunes || !utf8.ValidString(s) {
					t.Errorf("Generate(%q, %d, %+v) = %q, %v", p, seed, lim, s, err)
					continue
				}
				if again, _ := g.Generate(seed, lim); again != s {
					t.Errorf("Generate(%q, %d, %+v) = %q, then %q", p, seed, lim, s, again)
				}
			}
		}
	}
}

func TestSeedsDiffer(t *testing.T) {
	g := mustNew(t, `^[a-z]{12}$`)
	seen := map[string]bool{}
	for seed := range uint64(20) {
		s, _ := g.Generate(seed, Limits{})
		seen[s] = true
	}
	if len(seen) < 19 {
		t.Errorf("20 seeds gave %d strings", len(seen))
	}
}

// The output is fixed for a seed: reports are regenerated from their seed,
// so a change here changes old reports' cases.
func TestStableOutput(t *testing.T) {
	got, err := Generate(`^[a-z][a-z0-9_]{0,31}$`, 1, Limits{MaxRepeat: 6})
	if want := "oyffrv"; got != want || err != nil {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func TestRepeatCounts(t *testing.T) {
	tests := []struct {
		pattern  string
		rep      int
		min, max int // runes
	}{
		{`^a*$`, 0, 0, 0},
		{`^a*$`, 4, 0, 4},
		{`^a+$`, 0, 1, 1},
		{`^a+$`, 4, 1, 4},
		{`^a?$`, 0, 0, 0},
		{`^a?$`, 4, 0, 1},
		{`^a{2,5}$`, 0, 2, 2},
		{`^a{2,5}$`, 3, 2, 3},
		{`^a{2,5}$`, 100, 2, 5},
		{`^a{7,}$`, 3, 7, 7},
		{`^a{7,}$`, 9, 7, 9},
		{`^a{3}$`, 100, 3, 3},
	}
	for _, tt := range tests {
		g := mustNew(t, tt.pattern)
		lens := map[int]bool{}
		for seed := range uint64(200) {
			s, err := g.Generate(seed, Limits{MaxRepeat: tt.rep})
			n := utf8.RuneCountInString(s)
			if err != nil || n < tt.min || n > tt.max {
				t.Errorf("%q MaxRepeat %d: %q, %v; want %d to %d runes", tt.pattern, tt.rep, s, err, tt.min, tt.max)
			}
			lens[n] = true
		}
		if len(lens) != tt.max-tt.min+1 {
			t.Errorf("%q MaxRepeat %d: lengths %v, want every one from %d to %d", tt.pattern, tt.rep, lens, tt.min, tt.max)
		}
	}
}

// Classes give printable ASCII when they can, letters and digits most often.
func TestClassPreference(t *testing.T) {
	tests := []struct {
		pattern string
		ok      func(rune) bool
	}{
		{`^[^/]$`, func(r rune) bool { return r >= ' ' && r <= '~' }},
		{`^.$`, func(r rune) bool { return r >= ' ' && r <= '~' }},
		{`^[\x00-\x{10FFFF}]$`, func(r rune) bool { return r >= ' ' && r <= '~' }},
		{`^\s$`, func(r rune) bool { return r == ' ' }},
		{`^[^\x00-\x7f]$`, func(r rune) bool { return strings.ContainsRune(friendly, r) }},
		{`^[\x{400}-\x{4FF}]$`, func(r rune) bool { return r == 'Ж' || r == 'я' }},
		{`^[\x{1F600}-\x{1F64F}]$`, func(r rune) bool { return r >= 0x1F600 && r <= 0x1F64F }},
		{`^[\x{D800}-\x{E000}]$`, func(r rune) bool { return r == 0xE000 }},
	}
	for _, tt := range tests {
		g := mustNew(t, tt.pattern)
		alnum := 0
		for seed := range uint64(100) {
			s, err := g.Generate(seed, Limits{})
			r, _ := utf8.DecodeRuneInString(s)
			if err != nil || !tt.ok(r) {
				t.Errorf("%q seed %d: %q, %v", tt.pattern, seed, s, err)
			}
			if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				alnum++
			}
		}
		if strings.HasPrefix(tt.pattern, `^[^/]`) && alnum < 60 {
			t.Errorf("%q: %d of 100 letters or digits", tt.pattern, alnum)
		}
	}
}

// maxPairs is the largest class in tree, in pairs: the most one step can
// overshoot the budget.
func maxPairs(re *syntax.Regexp) int {
	n := len(re.Rune) / 2
	for _, sub := range re.Sub {
		n = max(n, maxPairs(sub))
	}
	return n
}

// unprintableClass is a class of n single private-use runes (not printable,
// so picking from it scans its pairs).
func unprintableClass(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		fmt.Fprintf(&b, `\x{%x}`, 0xF0000+2*i)
	}
	b.WriteByte(']')
	return b.String()
}

// Hostile patterns end with a result or an error within the budget; none
// panics, runs away or allocates without bound. The budget is checked in
// steps and runes, not in time.
func TestHostilePatterns(t *testing.T) {
	deep := func(n int, inner string) string {
		return strings.Repeat("(", n) + inner + strings.Repeat(")", n)
	}
	nestedStars := func(n int) string {
		return strings.Repeat("(", n) + "a" + strings.Repeat(")*", n)
	}
	tests := []struct {
		name, pattern string
		lim           Limits
		parseErr      bool
		want          error // nil: a matching string
	}{
		{name: "nested counts over 1000", pattern: `a{1000}{1000}`, parseErr: true},
		{name: "nested groups over 1000", pattern: `(?:a{1000}){1000}`, parseErr: true},
		{name: "repeat count over 1000", pattern: `a{1001}`, parseErr: true},
		{name: "nesting over 1000", pattern: deep(1001, "a"), parseErr: true},
		{name: "nesting at 999", pattern: deep(999, "a")},
		{name: "nested counts of 1000 runes", pattern: `^((a{10}){10}){10}$`},
		{name: "nested counts over 1000 in all", pattern: `^((a{100}){10}){10}$`, parseErr: true},
		{name: "10,000 runes", pattern: strings.Repeat(`a{1000}`, 10), want: ErrTooLong},
		{name: "2000 runes", pattern: `a{1000}b{1000}`, want: ErrTooLong},
		{name: "small MaxRunes", pattern: `a{20}`, lim: Limits{MaxRunes: 10}, want: ErrTooLong},
		{name: "huge MaxRunes is cut to the ceiling", pattern: strings.Repeat(`a{1000}`, 70), lim: Limits{MaxRunes: 1 << 40, MaxSteps: 1 << 40, MaxProgram: 1 << 40}, want: ErrTooLong},
		{name: "nested stars", pattern: nestedStars(12)},
		{name: "nested stars, deep", pattern: nestedStars(450)},
		{name: "nested stars, wide repeat", pattern: nestedStars(30), lim: Limits{MaxRepeat: 1000}},
		{name: "repeated word boundaries", pattern: `^((\b{10}){10}){10}a$`},
		{name: "repeated empty groups", pattern: `^(((){10}){10}){10}a$`},
		{name: "many alternatives", pattern: `^(` + strings.Repeat(`[a-z]{3}|`, 2000) + `x)$`},
		{name: "large program", pattern: strings.Repeat(`[a-z]{1000}`, 20), want: ErrTooComplex},
		{name: "every rune", pattern: `^[\x00-\x{10FFFF}]{1000}$`},
		{name: "huge unprintable class", pattern: `^` + unprintableClass(20000) + `{10}$`, want: ErrBudget},
		{name: "huge unprintable class once", pattern: `^` + unprintableClass(20000) + `$`},
		{name: "empty class", pattern: `[^\x00-\x{10FFFF}]`, want: ErrNoMatch},
		{name: "empty class after a literal", pattern: `a[^\x00-\x{10FFFF}]`, want: ErrNoMatch},
		{name: "empty class, optional", pattern: `^a[^\x00-\x{10FFFF}]*b[^\x00-\x{10FFFF}]{0,3}$`, lim: Limits{MaxRepeat: 5}},
		{name: "empty class in an alternative", pattern: `^(?:[^\x00-\x{10FFFF}]|a)+$`, lim: Limits{MaxRepeat: 5}},
		{name: "anchor mid-pattern", pattern: `^a$b`, want: ErrNoMatch},
		{name: "impossible word boundary", pattern: `a\bb`, want: ErrNoMatch},
		{name: "lookahead", pattern: `^(?=a)`, parseErr: true},
		{name: "backreference", pattern: `(a)\1`, parseErr: true},
		{name: "ECMA \\u escape", pattern: `\u00e9`, parseErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.pattern)
			if tt.parseErr {
				if err == nil {
					t.Fatalf("New(%.40q) parsed", tt.pattern)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%.40q): %v", tt.pattern, err)
			}
			lim := tt.lim.normalized()
			for seed := range uint64(3) {
				s, steps, err := g.generate(seed, tt.lim)
				if budget := lim.Attempts * (lim.MaxSteps + 1 + maxPairs(g.tree)); steps > budget {
					t.Errorf("seed %d: %d steps, budget %d", seed, steps, budget)
				}
				if n := utf8.RuneCountInString(s); n > lim.MaxRunes {
					t.Errorf("seed %d: %d runes, limit %d", seed, n, lim.MaxRunes)
				}
				switch {
				case tt.want == nil && (err != nil || !g.re.MatchString(s)):
					t.Errorf("seed %d: %.40q, %v; want a match", seed, s, err)
				case tt.want != nil && (!errors.Is(err, tt.want) || s != ""):
					t.Errorf("seed %d: %.40q, %v; want %v", seed, s, err, tt.want)
				}
			}
		})
	}
}

// FuzzGenerate: Generate never panics; it returns either a string of at most
// MaxRunes runes that the pattern matches, or "" and one of the Err values,
// within the step budget, and the same result for the same seed.
func FuzzGenerate(f *testing.F) {
	for _, p := range []string{
		`^[A-Z]{3}-[0-9]{4}$`, `^(feat|fix)\([a-z]+\): \w{2,}$`, `^[^\x00-\x7f]+@[a-z]{3}$`, `(?i)^héllo$`,
		`^((a{10}){10}){10}$`, `a{1000}b{1000}`, `((((a*)*)*)*)*`, `^a$b`, `a\bb`, `\B\b`,
		`[^\x00-\x{10FFFF}]`, `^\P{L}+$`, `(?s).`, `(?m)^$`, `\pN{3,}|\PN?`, `[\x{D800}-\x{DFFF}x]`,
		`[[:^print:]]{4}`, `(|a|)+`, `^(?:\b|\B)*\z`, `(a|b){0,1000}`, `.{1000}.`,
	} {
		f.Add(p, uint64(1), uint8(6), uint16(0))
	}
	f.Fuzz(func(t *testing.T, pattern string, seed uint64, rep uint8, runes uint16) {
		g, err := New(pattern)
		if err != nil {
			if _, cerr := regexp.Compile(pattern); cerr == nil {
				t.Fatalf("New(%q): %v, but regexp compiles it", pattern, err)
			}
			return
		}
		lim := Limits{MaxRepeat: int(rep), MaxRunes: int(runes)}
		s, steps, err := g.generate(seed, lim)
		n := lim.normalized()
		if budget := n.Attempts * (n.MaxSteps + 1 + maxPairs(g.tree)); steps > budget {
			t.Errorf("%q: %d steps, budget %d", pattern, steps, budget)
		}
		if err != nil {
			if s != "" || !(errors.Is(err, ErrTooComplex) || errors.Is(err, ErrTooLong) || errors.Is(err, ErrBudget) || errors.Is(err, ErrNoMatch)) {
				t.Errorf("%q: %q, %v", pattern, s, err)
			}
		} else if !regexp.MustCompile(pattern).MatchString(s) || utf8.RuneCountInString(s) > n.MaxRunes {
			t.Errorf("%q: %q (%d runes) does not match or is too long", pattern, s, utf8.RuneCountInString(s))
		}
		if again, _, err2 := g.generate(seed, lim); again != s || (err == nil) != (err2 == nil) {
			t.Errorf("%q: %q, then %q", pattern, s, again)
		}
	})
}

// MatchableRunes shrinks as the program grows, keeping runes × instructions
// within the match budget, and Generate's output stays within it.
func TestMatchableRunesBoundsTheMatchCost(t *testing.T) {
	small, err := New(`^[a-z]+$`)
	if err != nil {
		t.Fatal(err)
	}
	big, err := New(strings.Repeat(`(?:x{0,100})`, 40) + `yz$`)
	if err != nil {
		t.Fatal(err)
	}
	if small.MatchableRunes() <= big.MatchableRunes() {
		t.Errorf("MatchableRunes: %d for a small program, %d for a big one", small.MatchableRunes(), big.MatchableRunes())
	}
	if cost := big.MatchableRunes() * big.insts; cost > matchBudget {
		t.Errorf("%d runes × %d instructions = %d, over the budget %d", big.MatchableRunes(), big.insts, cost, matchBudget)
	}
	s, err := big.Generate(1, Limits{MaxRunes: 1 << 16})
	if err == nil && len([]rune(s)) > big.MatchableRunes() {
		t.Errorf("generated %d runes, over MatchableRunes %d", len([]rune(s)), big.MatchableRunes())
	}
}
