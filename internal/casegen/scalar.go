package casegen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
)

// str generates a string honouring format, pattern and length bounds, and
// preferring a plausible value for well-known property names.
func (g *generator) str(n *node, name string, variant int) string {
	if s, ok := formatValue(n.format, variant); ok && n.lengthOK(s) && g.patternOK(n, s) {
		return s
	}
	if n.pattern != "" {
		if s, ok := g.patternString(n, variant); ok {
			return s
		}
	}
	if h := hint(name); h != "" {
		if variant > 0 {
			h += strconv.Itoa(variant)
		}
		if n.lengthOK(h) && g.patternOK(n, h) {
			return h
		}
	}
	s := "test"
	if variant > 0 {
		s += strconv.Itoa(variant)
	}
	minLen := n.minLen
	if minLen > 0 && (g.bytes+minLen > g.maxBytes || minLen > maxFitLength) {
		g.limit(fmt.Sprintf("minLength %d", n.minLen))
		minLen = 0 // over budget: leave the string short (a generator gap)
	}
	s = fitLength(s, minLen, n.maxLen)
	g.bytes += len(s)
	return s
}

func (n *node) lengthOK(s string) bool {
	l := utf8.RuneCountInString(s)
	return (n.minLen < 0 || l >= n.minLen) && (n.maxLen < 0 || l <= n.maxLen)
}

func (g *generator) patternOK(n *node, s string) bool {
	if n.pattern == "" {
		return true
	}
	re := g.regexp(n.pattern)
	return re == nil || re.MatchString(s)
}

// maxFitLength bounds the strings fitLength makes.
const maxFitLength = MaxArgumentBytesAggressive

// fitLength pads s with "x" or cuts it to honour the rune-length bounds.
func fitLength(s string, minLen, maxLen int) string {
	minLen = min(minLen, maxFitLength)
	if l := utf8.RuneCountInString(s); minLen > l {
		s += strings.Repeat("x", minLen-l)
	}
	if maxLen >= 0 && utf8.RuneCountInString(s) > maxLen {
		s = string([]rune(s)[:maxLen])
	}
	return s
}

// formatValue returns a valid value for a known format.
func formatValue(format string, variant int) (string, bool) {
	switch format {
	case "date":
		return fmt.Sprintf("2024-01-%02d", 15+variant%10), true
	case "date-time":
		return fmt.Sprintf("2024-01-15T10:%02d:00Z", 30+variant%30), true
	case "time":
		return fmt.Sprintf("10:%02d:00Z", 30+variant%30), true
	case "email", "idn-email":
		if variant > 0 {
			return fmt.Sprintf("user%d@example.com", variant), true
		}
		return "user@example.com", true
	case "uri", "iri", "uri-reference", "iri-reference":
		if variant > 0 {
			return fmt.Sprintf("https://example.com/%d", variant), true
		}
		return "https://example.com", true
	case "uuid":
		return fmt.Sprintf("123e4567-e89b-12d3-a456-4266141740%02x", variant%256), true
	case "hostname", "idn-hostname":
		if variant > 0 {
			return fmt.Sprintf("host%d.example.com", variant), true
		}
		return "example.com", true
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", 1+variant%250), true
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", 1+variant%0xfff0), true
	case "duration":
		return fmt.Sprintf("P%dD", 1+variant), true
	case "json-pointer":
		return fmt.Sprintf("/test%d", variant), true
	case "relative-json-pointer":
		return strconv.Itoa(variant), true
	case "regex":
		return fmt.Sprintf("^test%d$", variant), true
	case "uri-template":
		return fmt.Sprintf("https://example.com/{id}/%d", variant), true
	case "semver":
		return fmt.Sprintf("1.0.%d", variant), true
	}
	return "", false
}

// badFormatValue returns a string that violates a known format.
func badFormatValue(format string) (string, bool) {
	switch format {
	case "date":
		return "not-a-date", true
	case "date-time":
		return "not-a-date-time", true
	case "time":
		return "25:61:61", true
	case "email", "idn-email":
		return "not-an-email", true
	case "uri", "iri":
		return "not a uri", true
	case "uri-reference", "iri-reference":
		return `not\a uri`, true
	case "uuid":
		return "not-a-uuid", true
	case "hostname", "idn-hostname":
		return "-not a hostname-", true
	case "ipv4":
		return "999.999.999.999", true
	case "ipv6":
		return "not-an-ipv6", true
	case "duration":
		return "not-a-duration", true
	case "json-pointer":
		return "not-a-pointer", true
	case "regex":
		return "(unclosed", true
	case "semver":
		return "not-a-version", true
	}
	return "", false
}

// hint returns a plausible value for a well-known property name, judged by
// its last word (homepage_url, filePath, ownerID), or "".
func hint(name string) string {
	ws := words.Split(name)
	if len(ws) == 0 {
		return ""
	}
	for _, w := range ws {
		if w == "email" {
			return "user@example.com"
		}
	}
	switch ws[len(ws)-1] {
	case "url", "uri", "link", "href", "endpoint", "website", "homepage":
		return "https://example.com"
	case "dir", "directory", "folder":
		return "."
	case "path", "file", "filename", "filepath":
		return "README.md"
	case "host", "hostname", "domain":
		return "example.com"
	case "ip":
		return "192.0.2.1"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	case "lang", "language", "locale":
		return "en"
	case "date":
		return "2024-01-15"
	case "id":
		return "1"
	}
	return ""
}

// number generates a number honouring the bounds and multipleOf, as close to
// 1 (+variant) as they allow.
func (g *generator) number(n *node, isInt bool, variant int) json.Number {
	b := n.numBounds(isInt)
	c := big.NewRat(int64(1+variant), 1)
	if b.lo != nil && (c.Cmp(b.lo) < 0 || (b.loEx && c.Cmp(b.lo) == 0)) {
		c = b.above()
	}
	if b.hi != nil && (c.Cmp(b.hi) > 0 || (b.hiEx && c.Cmp(b.hi) == 0)) {
		c = b.below()
	}
	if m := b.step; m != nil {
		k := ceilRat(new(big.Rat).Quo(c, m))
		if b.lo != nil {
			kmin := ceilRat(new(big.Rat).Quo(b.lo, m))
			if b.loEx && new(big.Rat).Mul(new(big.Rat).SetInt(kmin), m).Cmp(b.lo) == 0 {
				kmin.Add(kmin, big.NewInt(1))
			}
			if k.Cmp(kmin) < 0 {
				k = kmin
			}
		}
		if cand := new(big.Rat).Mul(new(big.Rat).SetInt(k), m); b.inside(cand) {
			c = cand
		} else if b.hi != nil {
			k = floorRat(new(big.Rat).Quo(b.hi, m))
			if cand := new(big.Rat).Mul(new(big.Rat).SetInt(k), m); b.inside(cand) {
				c = cand
			}
		}
	}
	return ratNumber(c)
}

// bounds are a node's numeric bounds; for integers they are already
// tightened to inclusive integer bounds.
type bounds struct {
	lo, hi     *big.Rat
	loEx, hiEx bool
	step       *big.Rat // multipleOf (for integers: a multiple that is an integer)
}

func (n *node) numBounds(isInt bool) bounds {
	b := bounds{lo: n.lo, hi: n.hi, loEx: n.loEx, hiEx: n.hiEx, step: n.multipleOf}
	if !isInt {
		return b
	}
	if b.lo != nil {
		f := new(big.Rat).SetInt(ceilRat(b.lo))
		if b.loEx && f.Cmp(b.lo) == 0 {
			f.Add(f, big.NewRat(1, 1))
		}
		b.lo, b.loEx = f, false
	}
	if b.hi != nil {
		f := new(big.Rat).SetInt(floorRat(b.hi))
		if b.hiEx && f.Cmp(b.hi) == 0 {
			f.Sub(f, big.NewRat(1, 1))
		}
		b.hi, b.hiEx = f, false
	}
	if b.step != nil {
		b.step = new(big.Rat).SetInt(b.step.Num()) // lcm(p/q, 1) = p for reduced p/q
	}
	return b
}

func (b bounds) inside(r *big.Rat) bool {
	if b.lo != nil && (r.Cmp(b.lo) < 0 || (b.loEx && r.Cmp(b.lo) == 0)) {
		return false
	}
	if b.hi != nil && (r.Cmp(b.hi) > 0 || (b.hiEx && r.Cmp(b.hi) == 0)) {
		return false
	}
	return true
}

// above is the smallest plausible value at the lower bound.
func (b bounds) above() *big.Rat {
	if !b.loEx {
		return new(big.Rat).Set(b.lo)
	}
	c := new(big.Rat).Add(b.lo, big.NewRat(1, 1))
	if b.inside(c) {
		return c
	}
	return midpoint(b.lo, b.hi)
}

// below is the largest plausible value at the upper bound.
func (b bounds) below() *big.Rat {
	if !b.hiEx {
		return new(big.Rat).Set(b.hi)
	}
	c := new(big.Rat).Sub(b.hi, big.NewRat(1, 1))
	if b.inside(c) {
		return c
	}
	if b.lo == nil {
		return c
	}
	return midpoint(b.lo, b.hi)
}

func midpoint(a, b *big.Rat) *big.Rat {
	if b == nil {
		return new(big.Rat).Add(a, big.NewRat(1, 1))
	}
	m := new(big.Rat).Add(a, b)
	return m.Quo(m, big.NewRat(2, 1))
}

func floorRat(r *big.Rat) *big.Int {
	return new(big.Int).Div(r.Num(), r.Denom()) // Euclidean division floors for a positive divisor
}

func ceilRat(r *big.Rat) *big.Int {
	neg := new(big.Rat).Neg(r)
	return new(big.Int).Neg(floorRat(neg))
}

// ratNumber renders r exactly when it has a finite decimal expansion.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	for prec := 1; prec <= 40; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return json.Number(s)
		}
	}
	return json.Number(r.FloatString(20))
}
