package leak

import (
	"cmp"
	"encoding/base64"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redaction by shape: a server can read a secret mcp-fuzz does not know (a CI
// token in its environment) and write it into any text it controls. The
// token patterns of [patterns] and a conservative rule for long random
// strings ([highEntropy]) find such secrets by their shape; [RedactShapes]
// replaces them with [Redacted]. Invisible characters a server could put
// inside a token to break its shape (a zero-width space after "gh") are
// ignored while matching, raw or JSON-escaped, and go with the token they
// were in.

// invisible reports whether r is a character that shows nothing: the
// Default_Ignorable_Code_Point characters of Unicode (zero-width characters,
// the soft hyphen, the combining grapheme joiner, bidi controls, Hangul
// fillers, variation selectors, tag characters and the like), reserved ones
// included.
func invisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x3164, r == 0xFEFF, r == 0xFFA0:
		return true
	case 0x115F <= r && r <= 0x1160, 0x17B4 <= r && r <= 0x17B5, 0x180B <= r && r <= 0x180F:
		return true
	case 0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x206F:
		return true
	case 0xFE00 <= r && r <= 0xFE0F, 0xFFF0 <= r && r <= 0xFFF8:
		return true
	case 0x1BCA0 <= r && r <= 0x1BCA3, 0x1D173 <= r && r <= 0x1D17A, 0xE0000 <= r && r <= 0xE0FFF:
		return true
	}
	return false
}

// maybeInvisible reports whether text may hold an invisible character, raw or
// as a JSON escape: a quick test that lets most texts skip [clean]. It looks
// for the first byte of each in UTF-8 (0xC2 for U+00AD, 0xCD for U+034F,
// 0xD8 for U+061C, 0xE1 for U+115F to U+180F, 0xE2 for U+200B to U+206F,
// 0xE3 for U+3164, 0xEF for U+FE00 to U+FFF8, 0xF0 for U+1BCA0 and U+1D173,
// 0xF3 for the tag characters and variation selectors) and for the backslash
// of an escape.
func maybeInvisible(text string) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case 0xC2, 0xCD, 0xD8, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0, 0xF3, '\\':
			return true
		}
	}
	return false
}

// escapedInvisible returns the length of the JSON escape of an invisible
// character at the start of s (`\u200b`, or the surrogate pair of a
// character beyond U+FFFF), 0 when there is none.
func escapedInvisible(s string) int {
	r, n := unicodeEscape(s)
	if n == 0 {
		return 0
	}
	if 0xD800 <= r && r <= 0xDBFF { // a high surrogate: the pair is one character
		lo, m := unicodeEscape(s[n:])
		if m > 0 && 0xDC00 <= lo && lo <= 0xDFFF && invisible(0x10000+(r-0xD800)<<10+(lo-0xDC00)) {
			return n + m
		}
		return 0
	}
	if invisible(r) {
		return n
	}
	return 0
}

// unicodeEscape decodes a `\uXXXX` escape at the start of s.
func unicodeEscape(s string) (rune, int) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' && s[1] != 'U' {
		return 0, 0
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(v)
	}
	return r, 6
}

// clean returns text without its invisible characters (raw, JSON-escaped, or
// escaped twice: the backslashes before an escape go with it) and, when it
// removed any, where each byte of the result (and its end) was in text.
func clean(text string) (string, []int) {
	if !maybeInvisible(text) {
		return text, nil
	}
	var sb strings.Builder
	var at []int
	from := 0                // the start of the bytes kept and not yet written
	drop := func(i, j int) { // text[i:j] is to be dropped
		if at == nil {
			sb.Grow(len(text))
			at = make([]int, 0, len(text)+1)
		}
		sb.WriteString(text[from:i])
		for k := from; k < i; k++ {
			at = append(at, k)
		}
		from = j
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && c != '\\' {
			i++
			continue
		}
		if c == '\\' {
			j := i
			for j < len(text) && text[j] == '\\' {
				j++
			}
			if n := escapedInvisible(text[j-1:]); n > 0 {
				drop(i, j-1+n)
				i = j - 1 + n
				continue
			}
			i = j // the whole run is kept: it is looked at once
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if invisible(r) {
			drop(i, i+size)
		}
		i += size
	}
	if at == nil {
		return text, nil
	}
	drop(len(text), len(text))
	return sb.String(), append(at, len(text))
}

// Bounds of the rule for long random strings.
const (
	// minEntropyRun is the shortest run of token characters that
	// [highEntropy] considers.
	minEntropyRun = 32
	// entropyFactor scales the largest entropy a run of its length can have
	// (log2 of its length, at most 6 bits): a random string of letters and
	// digits stays above it in more than 97% of draws at 32 characters, and
	// nearly always from 64 on, while words run together (identifiers) stay
	// below.
	entropyFactor = 0.85
)

// isTokenByte reports whether b can be part of a long random string: the
// base64 alphabets (standard and URL) and '='.
func isTokenByte(b byte) bool {
	return isWordByte(b) || b == '-' || b == '+' || b == '/' || b == '='
}

// highEntropy reports whether run, a maximal run of token bytes, looks like a
// random secret: at least [minEntropyRun] bytes, upper- and lower-case
// letters and digits all present, a Shannon entropy per character above
// [entropyFactor] times its maximum, and none of the shapes of healthy
// output that can get there: a path, a Subresource Integrity digest, or
// base64 of ordinary text. Hex digests and UUIDs never qualify: they have no
// upper-case letter, or no lower-case one.
func highEntropy(run string) bool {
	if len(run) < minEntropyRun {
		return false
	}
	var upper, lower, digit bool
	var counts [128]int
	for i := 0; i < len(run); i++ {
		b := run[i]
		counts[b]++
		upper = upper || 'A' <= b && b <= 'Z'
		lower = lower || 'a' <= b && b <= 'z'
		digit = digit || '0' <= b && b <= '9'
	}
	if !upper || !lower || !digit {
		return false
	}
	n := float64(len(run))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	if h <= entropyFactor*math.Log2(min(n, 64)) {
		return false
	}
	return !pathLike(run) && !integrity(run) && !ordinaryBase64(run)
}

// pathLike reports whether run has slashes between parts that read like
// words or names ("home/runner/work/Project2/src"): every part lower-case
// letters, digits, '_' and '-', after at most one capital.
func pathLike(run string) bool {
	if !strings.Contains(run, "/") {
		return false
	}
	for part := range strings.SplitSeq(run, "/") {
		for i := 0; i < len(part); i++ {
			b := part[i]
			if 'A' <= b && b <= 'Z' && i > 0 || b == '+' || b == '=' {
				return false
			}
		}
	}
	return true
}

// integrity reports whether run is a Subresource Integrity digest
// ("sha256-" and base64), which package locks and HTML carry.
func integrity(run string) bool {
	return strings.HasPrefix(run, "sha256-") || strings.HasPrefix(run, "sha384-") || strings.HasPrefix(run, "sha512-")
}

// ordinaryBase64 reports whether run decodes, as base64 of either alphabet, to
// text with words in it: printable UTF-8 with at least one space, and at least
// nine in ten of its characters letters, digits, spaces or punctuation.
func ordinaryBase64(run string) bool {
	s := strings.TrimRight(run, "=")
	if len(s)%4 == 1 {
		s = s[:len(s)-1]
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		var total, plain int
		space := false
		for _, r := range string(b) {
			total++
			switch {
			case r == ' ' || r == '\n' || r == '\t':
				space = true
				plain++
			case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsPunct(r):
				plain++
			}
		}
		if space && plain*10 >= total*9 {
			return true
		}
	}
	return false
}

// shapeSpans returns the spans of text that hold a secret by its shape,
// sorted and merged: the token patterns' matches, each extended over the
// token characters that follow it (so that redacting it cannot put a new
// token at the start of a word), and the runs of token bytes between them that
// are [highEntropy]. Invisible characters are ignored while matching (see
// [clean]); the spans are positions in text, and take in every invisible
// character inside a secret or right after it.
func shapeSpans(text string) []span {
	cleaned, at := clean(text)
	var spans []span
	for _, p := range tokenPatterns {
		p.each(cleaned, func(start, end int) bool {
			for end < len(cleaned) && (isWordByte(cleaned[end]) || cleaned[end] == '-') {
				end++
			}
			spans = append(spans, span{start, end})
			return true
		})
	}
	spans = mergeSpans(spans)
	// The runs of token bytes, cut at the token spans (redacted, they are
	// "***", which no run crosses).
	var runs []span
	k := 0
	for i := 0; i < len(cleaned); {
		if k < len(spans) && spans[k].start <= i {
			i = max(i, spans[k].end)
			k++
			continue
		}
		if !isTokenByte(cleaned[i]) {
			i++
			continue
		}
		if i > 0 && cleaned[i-1] == '\\' { // the letter of an escape (JSON text) is no part of a run
			if _, n := unicodeEscape(cleaned[i-1:]); n > 0 {
				i += n - 1
				continue
			}
			if strings.IndexByte("nrtbf", cleaned[i]) >= 0 {
				i++
				continue
			}
		}
		j := i
		limit := len(cleaned)
		if k < len(spans) {
			limit = spans[k].start
		}
		for j < limit && isTokenByte(cleaned[j]) {
			j++
		}
		if highEntropy(cleaned[i:j]) {
			runs = append(runs, span{i, j})
		}
		i = j
	}
	if len(runs) > 0 {
		spans = mergeSpans(append(spans, runs...))
	}
	if at != nil {
		for i := range spans {
			spans[i] = span{at[spans[i].start], at[spans[i].end]}
		}
	}
	return spans
}

// mergeSpans sorts spans and merges those that overlap or touch.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// replaceSpans returns text with every span replaced by [Redacted].
func replaceSpans(text string, spans []span) string {
	if len(spans) == 0 {
		return text
	}
	var sb strings.Builder
	sb.Grow(len(text))
	last := 0
	for _, s := range spans {
		sb.WriteString(text[last:s.start])
		sb.WriteString(Redacted)
		last = s.end
	}
	sb.WriteString(text[last:])
	return sb.String()
}

// RedactShapes returns text with every secret-shaped string replaced by
// "***", as [Detector.Redact] does, without a detector: the tokens of known
// services (GitHub, AWS access key IDs, Slack, JWTs, private keys, Google API
// keys, Stripe, npm, Anthropic, OpenAI) and long random strings, even with
// invisible characters inside. Hex digests, UUIDs, paths, URLs and base64 of
// ordinary text are left alone. It takes time linear in the length of text.
func RedactShapes(text string) string {
	return replaceSpans(text, shapeSpans(text))
}

// shapeSpans is the package's [shapeSpans] without the spans that lie within
// an occurrence of a kept name (see [Detector.Keeping]).
func (d *Detector) shapeSpans(text string) []span {
	spans := shapeSpans(text)
	if len(d.kept) == 0 || len(spans) == 0 {
		return spans
	}
	var names []span
	for _, k := range d.kept {
		for i := 0; ; {
			j := strings.Index(text[i:], k)
			if j < 0 {
				break
			}
			names = append(names, span{i + j, i + j + len(k)})
			i += j + len(k)
		}
	}
	return slices.DeleteFunc(spans, func(s span) bool {
		return slices.ContainsFunc(names, func(n span) bool { return n.start <= s.start && s.end <= n.end })
	})
}

// Keeping returns a copy of d whose redaction by shape leaves the given names
// alone wherever they occur: identifiers, such as tool names, that mcp-fuzz
// calls a server with and that its reports must show as they are. Only names
// that hold a secret shape matter; the given values are still redacted.
func (d *Detector) Keeping(names []string) *Detector {
	c := *d
	c.kept = nil
	for _, n := range names {
		if len(shapeSpans(n)) > 0 && !slices.Contains(c.kept, n) {
			c.kept = append(c.kept, n)
		}
	}
	return &c
}
