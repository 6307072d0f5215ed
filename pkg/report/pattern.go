package report

import (
	"bytes"
	"unicode/utf8"
)

// PatternPart is a piece of compacted arguments: Text, Repeat times (once
// when Repeat is 0).
type PatternPart struct {
	Text   string `json:"text"`
	Repeat int    `json:"repeat,omitempty" jsonschema:"minimum=0"`
}

// Limits of a pattern: arguments that do not reduce to this are stored
// without one (replay then regenerates them from the schema).
const (
	maxPatternLiteral = 1024 // bytes of text outside repeated runs
	maxPatternParts   = 16
	maxPatternUnit    = 16 // longest repeated unit looked for
	minPatternRun     = 128
)

// patternOf describes args as literal text and runs of a repeated unit
// (the oversize cases are a 64 KiB string of one character, or 10,000 copies
// of one array item), or returns nil when args are not that regular.
func patternOf(args []byte) []PatternPart {
	var parts []PatternPart
	literal := 0
	start := 0 // of the pending literal
	flush := func(end int) bool {
		if end > start {
			literal += end - start
			parts = append(parts, PatternPart{Text: string(args[start:end])})
		}
		return literal <= maxPatternLiteral && len(parts) <= maxPatternParts
	}
	for i := 0; i < len(args); {
		unit, n := longestRun(args[i:])
		if unit == 0 {
			if i++; literal+i-start > maxPatternLiteral {
				return nil
			}
			continue
		}
		if !flush(i) {
			return nil
		}
		parts = append(parts, PatternPart{Text: string(args[i : i+unit]), Repeat: n})
		i += unit * n
		start = i
	}
	if !flush(len(args)) || !validParts(parts) {
		return nil
	}
	return parts
}

// longestRun finds the shortest unit (1 to maxPatternUnit bytes) repeated
// over at least minPatternRun bytes at the start of b, and how many times it
// repeats; 0 when there is none.
func longestRun(b []byte) (unit, count int) {
	for u := 1; u <= maxPatternUnit && u+minPatternRun <= len(b); u++ {
		// b has period u over its first u+n bytes when b[u:u+n] equals
		// b[:n].
		if !bytes.Equal(b[u:u+minPatternRun], b[:minPatternRun]) {
			continue
		}
		n := minPatternRun + commonPrefix(b[u+minPatternRun:], b[minPatternRun:])
		return u, (u + n) / u
	}
	return 0, 0
}

// commonPrefix is the length of the longest common prefix of x and y,
// compared a block at a time.
func commonPrefix(x, y []byte) int {
	const block = 256
	n := 0
	for n+block <= len(x) && n+block <= len(y) && bytes.Equal(x[n:n+block], y[n:n+block]) {
		n += block
	}
	for n < len(x) && n < len(y) && x[n] == y[n] {
		n++
	}
	return n
}

// validParts reports whether every part is valid UTF-8: JSON stores text,
// so a unit cut inside a character could not be written back.
func validParts(parts []PatternPart) bool {
	for _, p := range parts {
		if !utf8.ValidString(p.Text) {
			return false
		}
	}
	return true
}

// MaxPatternBytes bounds what [ExpandPattern] writes, far above the largest
// arguments a case is ever given, so that a report cannot make a reader
// allocate without end.
const MaxPatternBytes = 64 << 20

// ExpandPattern returns the bytes a pattern describes; ok is false, and
// nothing is allocated, when they would be more than limit bytes (or more
// than [MaxPatternBytes]).
func ExpandPattern(parts []PatternPart, limit int) (b []byte, ok bool) {
	limit = min(limit, MaxPatternBytes)
	total := 0
	for _, p := range parts {
		n := max(p.Repeat, 1)
		if len(p.Text) > 0 && n > (limit-total)/len(p.Text) {
			return nil, false
		}
		total += n * len(p.Text)
	}
	var buf bytes.Buffer
	buf.Grow(total)
	for _, p := range parts {
		for range max(p.Repeat, 1) {
			buf.WriteString(p.Text)
		}
	}
	return buf.Bytes(), true
}
