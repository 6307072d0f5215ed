// Package regexgen generates strings that match a regular expression, for
// JSON Schema "pattern" keywords that may come from an untrusted server. It
// cannot panic on any input, and its work and output are bounded whatever the
// pattern.
//
// # Syntax
//
// A pattern is read exactly as Go's regexp reads it: [regexp/syntax] with
// the [syntax.Perl] flags, which is what [regexp.Compile] uses and so what a
// validator built on Go's regexp (the one mcp-fuzz uses) checks. JSON Schema
// patterns are ECMA-262 regular expressions; the two dialects differ:
//
//   - ECMA-only syntax does not parse and is an error here: lookahead and
//     lookbehind, backreferences, \uXXXX escapes (Go spells them \x{XXXX}),
//     \cX, unicode sets. Callers treat such a pattern as they treat any
//     pattern Go's regexp cannot compile (casegen generates no pattern string
//     and the validator does not check the pattern).
//   - Some classes differ in meaning: ECMA's \s also holds \v and Unicode
//     spaces, and ECMA's "." also excludes \r, U+2028 and U+2029. The
//     generator emits printable ASCII wherever a class allows it (a space for
//     \s, a letter or digit for "."), which reads the same in both dialects.
//   - Go-only syntax, such as (?i) flags, \pL classes and \Q...\E, is
//     supported as Go reads it.
//
// # What is generated
//
// The generator walks the parse tree: literals are copied, a character class
// (and ".") gives one of its members, preferring letters and digits, then
// other printable ASCII, then a printable non-ASCII rune; an alternation picks
// a branch; a capture is its content; a repetition x{min,max} (and *, +, ?)
// repeats x between min and max(min, min(max, [Limits.MaxRepeat])) times.
// Anchors and word boundaries (^ $ \A \z \b \B) emit nothing: the candidate
// is then checked with [regexp.Regexp.MatchString] (unanchored, as JSON
// Schema and Go's validator match), and a candidate that does not match (say
// "a^b" or "a\bb") is drawn again, [Limits.Attempts] times in all, before an
// error.
//
// The result depends only on the pattern, the seed and the limits: the
// random source is a fixed splitmix64 stream, not math/rand.
//
// # Bounds
//
// Go's parser already refuses repeat counts over 1000 (also when nested
// repeats multiply past 1000) and nesting deeper than 1000. On top of that:
//
//   - [Limits.MaxProgram]: a pattern whose compiled program has more
//     instructions is refused with [ErrTooComplex] before any generating;
//   - [Limits.MaxRunes]: a pattern whose shortest match is longer (say
//     a{1000}b{1000}, 2000 runes) gets [ErrTooLong] at once, and output
//     longer than this stops the attempt with [ErrTooLong]. For a pattern
//     of more than 2048 instructions MaxRunes is cut further, so that runes
//     times instructions, the worst-case cost of the match check, stays
//     under 2^21 (a 16384-instruction pattern gets at most 128 runes);
//   - [Limits.MaxSteps]: tree nodes visited plus runes emitted (plus the
//     pairs of a class scanned in the rare last resort of picking one of its
//     members), per attempt; past it the attempt stops with [ErrBudget]. A
//     step is a bounded amount of work (picking from a class looks at its
//     printable ASCII part and at most a few random members). Once half the
//     steps or half the runes are spent, every repetition takes its minimum
//     count, so nested stars such as ((a*)*)* still finish.
//
// Each limit has a hard ceiling (see [Limits]) that larger values are cut to.
package regexgen

import (
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Errors a generation can end with, besides a parse error. Test them with
// errors.Is.
var (
	// ErrTooComplex: the compiled pattern exceeds Limits.MaxProgram.
	ErrTooComplex = errors.New("regexgen: pattern too complex")
	// ErrTooLong: the shortest match, or the last candidate drawn, has more
	// than Limits.MaxRunes runes.
	ErrTooLong = errors.New("regexgen: output too long")
	// ErrBudget: the last attempt took more than Limits.MaxSteps steps.
	ErrBudget = errors.New("regexgen: work budget exhausted")
	// ErrNoMatch: no candidate matched the pattern (anchors or word
	// boundaries in impossible places, or a class with no member).
	ErrNoMatch = errors.New("regexgen: no matching string found")
)

// Defaults for a zero field of [Limits], and the ceilings larger values are
// cut to.
const (
	DefaultMaxRunes   = 1024
	DefaultMaxSteps   = 1 << 15
	DefaultMaxProgram = 1 << 14
	DefaultAttempts   = 3

	CeilMaxRepeat  = 1000
	CeilMaxRunes   = 1 << 16
	CeilMaxSteps   = 1 << 20
	CeilMaxProgram = 1 << 18
	CeilAttempts   = 16
)

// Limits bound one call of [Generator.Generate]. A zero field takes its
// default, except MaxRepeat, where 0 is meaningful (shortest strings).
type Limits struct {
	// MaxRepeat caps open and wide repetitions: x* and x{2,} repeat at
	// most max(min, MaxRepeat) times; 0 gives every repetition its minimum.
	// Negative counts as 0; ceiling CeilMaxRepeat.
	MaxRepeat int
	// MaxRunes is the longest output, in runes (default DefaultMaxRunes,
	// ceiling CeilMaxRunes, lower for large patterns: see the package
	// doc).
	MaxRunes int
	// MaxSteps is the work allowed per attempt (default DefaultMaxSteps,
	// ceiling CeilMaxSteps).
	MaxSteps int
	// MaxProgram is the largest compiled pattern, in instructions, that is
	// generated for (default DefaultMaxProgram, ceiling CeilMaxProgram).
	MaxProgram int
	// Attempts is how many candidates are drawn before giving up (default
	// DefaultAttempts, ceiling CeilAttempts).
	Attempts int
}

func (l Limits) normalized() Limits {
	clamp := func(v, def, ceil int) int {
		if v <= 0 {
			return def
		}
		return min(v, ceil)
	}
	l.MaxRepeat = min(max(l.MaxRepeat, 0), CeilMaxRepeat)
	l.MaxRunes = clamp(l.MaxRunes, DefaultMaxRunes, CeilMaxRunes)
	l.MaxSteps = clamp(l.MaxSteps, DefaultMaxSteps, CeilMaxSteps)
	l.MaxProgram = clamp(l.MaxProgram, DefaultMaxProgram, CeilMaxProgram)
	l.Attempts = clamp(l.Attempts, DefaultAttempts, CeilAttempts)
	return l
}

// Generator generates strings for one pattern. It is immutable: one
// Generator may be used by several goroutines at once.
type Generator struct {
	tree   *syntax.Regexp
	re     *regexp.Regexp
	insts  int
	minLen int // runes of the shortest string the tree gives (see minLen)
}

// New parses pattern as Go's regexp does. Its error is the parser's.
func New(pattern string) (*Generator, error) {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return &Generator{tree: tree, re: re, insts: len(prog.Inst), minLen: minLen(tree, 0)}, nil
}

// lenCap is where minLen stops counting: above any MaxRunes.
const lenCap = CeilMaxRunes + 1

// minLen returns the runes of the shortest string re gives, at most lenCap,
// or -1 when re gives none (a class with no member in a part that must be
// there), in one pass over the tree.
func minLen(re *syntax.Regexp, depth int) int {
	if depth > maxDepth {
		return lenCap
	}
	sub := func(i int) int {
		if i >= len(re.Sub) {
			return -1
		}
		return minLen(re.Sub[i], depth+1)
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return -1
	case syntax.OpLiteral:
		return min(len(re.Rune), lenCap)
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return -1
		}
		return 1
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return sub(0)
	case syntax.OpRepeat:
		if re.Min <= 0 {
			return 0
		}
		n := sub(0)
		if n < 0 {
			return -1
		}
		return min(n*min(re.Min, lenCap), lenCap) // both at most lenCap: no overflow
	case syntax.OpConcat:
		n := 0
		for i := range re.Sub {
			m := sub(i)
			if m < 0 {
				return -1
			}
			n = min(n+m, lenCap)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for i := range re.Sub {
			if m := sub(i); m >= 0 && (n < 0 || m < n) {
				n = m
			}
		}
		return n
	}
	return 0 // empty match, zero-width assertions, star, quest
}

// Generate is New(pattern) followed by Generate(seed, lim).
func Generate(pattern string, seed uint64, lim Limits) (string, error) {
	g, err := New(pattern)
	if err != nil {
		return "", err
	}
	return g.Generate(seed, lim)
}

// Generate returns a string of at most lim.MaxRunes runes that the pattern
// matches, or "" and an error wrapping one of the Err values.
func (g *Generator) Generate(seed uint64, lim Limits) (string, error) {
	s, _, err := g.generate(seed, lim)
	return s, err
}

// generate also returns the steps spent over all attempts, for tests.
func (g *Generator) generate(seed uint64, lim Limits) (string, int, error) {
	lim = lim.normalized()
	if g.insts > lim.MaxProgram {
		return "", 0, fmt.Errorf("%w: %d instructions, limit %d", ErrTooComplex, g.insts, lim.MaxProgram)
	}
	lim.MaxRunes = min(lim.MaxRunes, g.MatchableRunes())
	if g.minLen < 0 {
		return "", 0, fmt.Errorf("%w: %v", ErrNoMatch, errNoMember)
	}
	if g.minLen > lim.MaxRunes {
		return "", 0, fmt.Errorf("%w: the shortest match has more than %d runes", ErrTooLong, lim.MaxRunes)
	}
	w := walker{rng: seed, lim: lim, out: make([]rune, 0, 64)}
	var last error
	spent := 0
	for range lim.Attempts {
		w.out, w.steps = w.out[:0], 0
		err := w.walk(g.tree, 0)
		spent += w.steps
		if err != nil {
			last = err
			if errors.Is(err, errNoMember) {
				break // the same on every attempt
			}
			continue
		}
		s := string(w.out)
		if g.re.MatchString(s) {
			return s, spent, nil
		}
		last = errMismatch
	}
	switch {
	case errors.Is(last, ErrTooLong), errors.Is(last, ErrBudget):
		return "", spent, last
	default:
		return "", spent, fmt.Errorf("%w: %v", ErrNoMatch, last)
	}
}

var (
	errNoMember = errors.New("the pattern has a part that matches nothing")
	errMismatch = errors.New("a candidate did not satisfy the anchors or word boundaries")
	errTooDeep  = fmt.Errorf("%w: nesting deeper than %d", ErrBudget, maxDepth)
)

// MatchableRunes is the longest input the pattern's program may be
// matched against within the match budget (runes × instructions, see
// matchBudget): a caller that checks a longer string against the pattern
// spends more than the generator ever does.
func (g *Generator) MatchableRunes() int { return max(matchBudget/max(g.insts, 1), 1) }

// matchBudget bounds runes × program instructions, the worst-case cost of
// the match check (Go's regexp visits each instruction at most once per
// input rune); it cuts MaxRunes for large patterns: tens of milliseconds at
// worst.
const matchBudget = 1 << 21

// maxDepth bounds recursion. Go's parser already refuses nesting deeper than
// 1000; this holds should that ever change.
const maxDepth = 2000

type walker struct {
	rng   uint64
	lim   Limits
	out   []rune
	steps int
}

// next is splitmix64: a fixed, portable stream.
func (w *walker) next() uint64 {
	w.rng += 0x9e3779b97f4a7c15
	z := w.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n); n must be > 0.
func (w *walker) intn(n int) int {
	hi, _ := bits.Mul64(w.next(), uint64(n))
	return int(hi)
}

func (w *walker) spend(n int) error {
	w.steps += n
	if w.steps > w.lim.MaxSteps {
		return fmt.Errorf("%w: more than %d steps", ErrBudget, w.lim.MaxSteps)
	}
	return nil
}

// pressed reports that half the budget is spent: repetitions then take their
// minimum so that the attempt can still finish.
func (w *walker) pressed() bool {
	return 2*w.steps > w.lim.MaxSteps || 2*len(w.out) > w.lim.MaxRunes
}

func (w *walker) emit(r rune) error {
	if len(w.out) >= w.lim.MaxRunes {
		return fmt.Errorf("%w: more than %d runes", ErrTooLong, w.lim.MaxRunes)
	}
	w.out = append(w.out, r)
	return w.spend(1)
}

func (w *walker) walk(re *syntax.Regexp, depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	if err := w.spend(1); err != nil {
		return err
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return errNoMember
	case syntax.OpEmptyMatch,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil // zero width: the final match check decides
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				r = lowerFold(r)
			}
			if err := w.emit(r); err != nil {
				return err
			}
		}
		return nil
	case syntax.OpCharClass:
		r, err := w.classRune(re.Rune)
		if err != nil {
			return err
		}
		return w.emit(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return w.emit(w.printable(nil, true))
	case syntax.OpCapture:
		if len(re.Sub) != 1 {
			return errNoMember
		}
		return w.walk(re.Sub[0], depth+1)
	case syntax.OpStar:
		return w.repeat(re, 0, -1, depth)
	case syntax.OpPlus:
		return w.repeat(re, 1, -1, depth)
	case syntax.OpQuest:
		return w.repeat(re, 0, 1, depth)
	case syntax.OpRepeat:
		return w.repeat(re, re.Min, re.Max, depth)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if err := w.walk(sub, depth+1); err != nil {
				return err
			}
		}
		return nil
	case syntax.OpAlternate:
		return w.alternate(re, depth)
	}
	return fmt.Errorf("%w: unsupported operator %v", errNoMember, re.Op)
}

// repeat emits re.Sub[0] between lo and max(lo, min(hi, MaxRepeat)) times
// (hi < 0: no upper bound).
func (w *walker) repeat(re *syntax.Regexp, lo, hi, depth int) error {
	if len(re.Sub) != 1 || lo < 0 {
		return errNoMember
	}
	top := w.lim.MaxRepeat
	if hi >= 0 {
		top = min(top, hi)
	}
	n := lo
	if top > lo && !w.pressed() {
		n += w.intn(top - lo + 1)
	}
	for i := range n {
		mark := len(w.out)
		if err := w.walk(re.Sub[0], depth+1); err != nil {
			if i >= lo && errors.Is(err, errNoMember) {
				w.out = w.out[:mark] // an optional copy that cannot match: stop here
				return nil
			}
			return err
		}
	}
	return nil
}

// alternate walks a random branch, or, when that branch can match nothing,
// the next ones in turn.
func (w *walker) alternate(re *syntax.Regexp, depth int) error {
	if len(re.Sub) == 0 {
		return errNoMember
	}
	start := w.intn(len(re.Sub))
	mark := len(w.out)
	var err error
	for i := range re.Sub {
		w.out = w.out[:mark]
		if err = w.walk(re.Sub[(start+i)%len(re.Sub)], depth+1); !errors.Is(err, errNoMember) {
			return err
		}
	}
	return err
}

const (
	// alnumWeight is how much likelier a letter or digit of a class is
	// picked than one of its other printable ASCII members.
	alnumWeight = 4
	// printableTries is how many random members of a class without
	// printable ASCII are drawn in search of a printable rune.
	printableTries = 8
)

// printable picks a printable ASCII member (space to ~) of ranges, or of all
// runes when all is set, a letter or digit being alnumWeight times as likely
// as punctuation or space; -1 when there is none. Its work is bounded by the
// 95 printable ASCII characters and the pairs that start below them.
func (w *walker) printable(ranges []rune, all bool) rune {
	var members ['~' - ' ' + 1]byte
	n, weight := 0, 0
	add := func(lo, hi rune) {
		for c := max(lo, ' '); c <= min(hi, '~') && n < len(members); c++ {
			members[n] = byte(c)
			n++
			weight += charWeight(byte(c))
		}
	}
	if all {
		add(' ', '~')
	}
	for i := 0; !all && i+1 < len(ranges) && ranges[i] <= '~'; i += 2 {
		add(ranges[i], ranges[i+1])
	}
	if n == 0 {
		return -1
	}
	k := w.intn(weight)
	for _, c := range members[:n] {
		if k -= charWeight(c); k < 0 {
			return rune(c)
		}
	}
	return rune(members[n-1])
}

func charWeight(c byte) int {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return alnumWeight
	}
	return 1
}

// friendly are the non-ASCII runes tried first for a class without
// printable ASCII members: common letters of a few scripts and symbols.
const friendly = "éüñßçøαλЖя中日한€✓"

// spanCap bounds how far into a pair of a class a random draw goes, so that
// a huge pair such as \x80-\x{10FFFF} mostly gives assigned, printable runes
// of the first planes rather than unassigned ones.
const spanCap = 0x3000

// classRune picks a member of a character class (sorted lo, hi pairs):
// printable ASCII when it has some; else one of the friendly runes it holds;
// else a printable rune drawn from a random pair, printableTries times; else
// the first member that is a valid rune (scanning the pairs then costs one
// step per pair).
func (w *walker) classRune(ranges []rune) (rune, error) {
	if r := w.printable(ranges, false); r >= 0 {
		return r, nil
	}
	pairs := len(ranges) / 2
	if pairs == 0 {
		return 0, errNoMember
	}
	var held [len(friendly)]rune // bytes: at least as many as runes
	n := 0
	for _, r := range friendly {
		if inClass(ranges, r) {
			held[n] = r
			n++
		}
	}
	if n > 0 {
		return held[w.intn(n)], nil
	}
	for range printableTries {
		i := 2 * w.intn(pairs)
		lo, hi := max(ranges[i], 0), min(ranges[i+1], unicode.MaxRune)
		if lo > hi {
			continue
		}
		r := lo + rune(w.intn(int(min(hi-lo, spanCap))+1))
		if utf8.ValidRune(r) && unicode.IsPrint(r) {
			return r, nil
		}
	}
	if err := w.spend(pairs); err != nil {
		return 0, err
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], 0), min(ranges[i+1], unicode.MaxRune)
		switch {
		case lo > hi:
		case utf8.ValidRune(lo):
			return lo, nil
		case hi > 0xdfff: // lo is a surrogate
			return 0xe000, nil
		}
	}
	return 0, errNoMember
}

// inClass reports whether r is in ranges (sorted lo, hi pairs), by binary
// search.
func inClass(ranges []rune, r rune) bool {
	lo, hi := 0, len(ranges)/2
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < ranges[2*m]:
			hi = m
		case r > ranges[2*m+1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// lowerFold returns the lower case of r when it is case-equivalent to r (Go
// stores (?i)hello as HELLO), else r.
func lowerFold(r rune) rune {
	l := unicode.ToLower(r)
	for f, i := unicode.SimpleFold(r), 0; f != r && i < 8; f, i = unicode.SimpleFold(f), i+1 {
		if f == l {
			return l
		}
	}
	return r
}
