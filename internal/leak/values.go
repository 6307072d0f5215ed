package leak

import "strings"

// Matching of the given secrets. A server that knows a secret can write it
// so that a plain search misses it: with invisible characters inside
// ("apike\u200byvalue…"), in another letter case, or percent-encoded. The
// forms of [variants] cover the encodings; the text is matched with its
// invisible characters removed (see [clean]) and its ASCII letters
// lower-cased, against forms lower-cased the same way, and every match is
// mapped back to the span of the text it came from, so that only that span
// is redacted. Only ASCII letters are folded: the other letters of a value
// must show up as they were given (or in one of their escaped forms). The
// work is linear in the length of the text for each form.

// A needle is one form of the given secrets as it is matched: its ASCII
// letters lower-cased.
type needle struct {
	key     string
	secrets []int // the indexes in Detector.secrets of the secrets with this form
}

// addNeedle adds key, a form of secret i, to needles, once.
func addNeedle(needles []needle, key string, i int) []needle {
	for k := range needles {
		if needles[k].key == key {
			if n := &needles[k]; n.secrets[len(n.secrets)-1] != i {
				n.secrets = append(n.secrets, i)
			}
			return needles
		}
	}
	return append(needles, needle{key: key, secrets: []int{i}})
}

// foldASCII returns s with its ASCII letters lower-cased and every other
// byte as it is, so that positions in the result are positions in s.
func foldASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// buildNeedles makes the needles of d from the variants of its secrets:
// d.raw, every variant folded, matched in the text as it is; d.clean, every
// variant without its invisible characters and folded, matched in the text
// without its invisible characters (when cleaning removed nothing, both are
// matched in the text).
func (d *Detector) buildNeedles() {
	for i, s := range d.secrets {
		for _, v := range s.variants {
			d.raw = addNeedle(d.raw, foldASCII(v), i)
			if c, _ := clean(v); len(c) >= MinSecretLen {
				d.clean = addNeedle(d.clean, foldASCII(c), i)
			}
		}
	}
	d.both = append([]needle(nil), d.raw...)
	for _, n := range d.clean {
		for _, i := range n.secrets {
			d.both = addNeedle(d.both, n.key, i)
		}
	}
}

// valueHits calls fn for the occurrences in text of the forms of the given
// secrets, in any ASCII letter case and ignoring invisible characters, with
// their spans in text: every occurrence when all is set (those of one form
// do not overlap), else the first of each form. It reports whether text held
// invisible characters.
func (d *Detector) valueHits(text string, all bool, fn func(n *needle, sp span)) bool {
	if len(d.raw) == 0 {
		return false
	}
	folded := foldASCII(text)
	cleaned, at := clean(text)
	if at == nil {
		search(folded, d.both, all, func(n *needle, start, end int) { fn(n, span{start, end}) })
		return false
	}
	search(folded, d.raw, all, func(n *needle, start, end int) { fn(n, span{start, end}) })
	// A match ends with its last byte: invisible characters after it stay.
	search(foldASCII(cleaned), d.clean, all, func(n *needle, start, end int) { fn(n, span{at[start], at[end-1] + 1}) })
	return true
}

// search calls fn for the occurrences of each needle in text: all of them,
// left to right and not overlapping, or only the first.
func search(text string, needles []needle, all bool, fn func(n *needle, start, end int)) {
	for k := range needles {
		n := &needles[k]
		for i := 0; i < len(text); {
			j := strings.Index(text[i:], n.key)
			if j < 0 {
				break
			}
			fn(n, i+j, i+j+len(n.key))
			if !all {
				break
			}
			i += j + len(n.key)
		}
	}
}

// valueSpans returns the spans of text that hold a given secret, sorted and
// merged, and whether text held invisible characters.
func (d *Detector) valueSpans(text string) ([]span, bool) {
	var spans []span
	invisibles := d.valueHits(text, true, func(_ *needle, sp span) { spans = append(spans, sp) })
	return mergeSpans(spans), invisibles
}
