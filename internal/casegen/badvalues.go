package casegen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// wrongValue returns a value of another JSON type than v, preferring one the
// schema does not allow: string -> 123, number -> "not-a-number",
// boolean -> "true", object/array/null -> "str".
func wrongValue(n *node, v any) any {
	var primary any = "str"
	switch jsonType(v) {
	case "string":
		primary = json.Number("123")
	case "integer", "number":
		primary = "not-a-number"
	case "boolean":
		primary = "true"
	}
	if !n.typed {
		return primary
	}
	for _, c := range []any{primary, json.Number("123"), "str", true, []any{}, map[string]any{}} {
		if !sameType(c, v) && !typeAllowed(n.types, c) {
			return c
		}
	}
	return primary
}

func sameType(a, b any) bool {
	ta, tb := jsonType(a), jsonType(b)
	num := func(t string) bool { return t == "integer" || t == "number" }
	return ta == tb || (num(ta) && num(tb))
}

// typeLabel describes the expected type for messages.
func (n *node) typeLabel(v any) string {
	if n.typed && len(n.types) > 0 {
		return strings.Join(n.types, "|")
	}
	return jsonType(v)
}

// short renders a value for a description, cut to a readable length.
func short(v any) string {
	s := string(encode(v))
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:37]) + "..."
	}
	return s
}

// outsideEnum returns a value of the valid value's type that is neither the
// const nor any enum member.
func outsideEnum(n *node, v any) (any, bool) {
	if !n.hasConst && !n.hasEnum {
		return nil, false
	}
	var cands []any
	switch t := v.(type) {
	case bool:
		cands = []any{!t}
	case json.Number:
		cands = []any{json.Number("987654321"), json.Number("-987654321"), json.Number("0"), json.Number("1")}
	default:
		cands = []any{"mcp_fuzz_not_in_enum", "mcp_fuzz_not_in_enum_2"}
	}
	for _, c := range cands {
		if (n.hasConst && sameValue(n.constV, c)) || (n.hasEnum && inEnum(n.enum, c)) {
			continue
		}
		return c, true
	}
	return nil, false
}

// inEnum scans the whole enum; scalars compare without encoding.
func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if sameValue(e, v) {
			return true
		}
	}
	return false
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, ok1 := parseRat(string(x))
		ry, ok2 := parseRat(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case nil:
		return b == nil
	}
	return equalJSON(a, b)
}

// bad is one out-of-range value. Long ones are made only when their case is
// kept: size and show are known before.
type bad struct {
	variant string
	make    func() any
	size    int    // sizeOf the value
	show    string // short(value), for the description
	why     string
}

// eager wraps a value that already exists (it is small).
func eager(variant string, v any, why string) bad {
	return bad{variant, func() any { return v }, sizeOf(v), short(v), why}
}

// lengthened is fitLength(s, l, l) for a rune count l that may be large: s is cut
// to at most l runes now, the "x" padding is added only by make.
func lengthened(variant, s string, l int, why string) bad {
	if utf8.RuneCountInString(s) > l {
		s = string([]rune(s)[:l])
	}
	pad := l - utf8.RuneCountInString(s)
	return bad{variant, func() any { return s + strings.Repeat("x", pad) },
		stringSize(s) + pad, short(showPrefix(s, pad)), why}
}

// showPrefix is the first runes of s followed by pad "x": enough of them that
// short gives the same as for the whole string.
func showPrefix(s string, pad int) string {
	const enough = 64 // short keeps 37 runes of the encoding
	if r := []rune(s); len(r) > enough {
		return string(r[:enough])
	}
	return s + strings.Repeat("x", min(pad, enough))
}

// ranges returns values just outside the bounds that apply to v's type.
func (g *generator) ranges(n *node, v any) []bad {
	switch t := v.(type) {
	case string:
		return g.stringRanges(n, t)
	case json.Number:
		return numberRanges(n, t)
	case []any:
		return g.arrayRanges(n, t)
	}
	return nil
}

func (g *generator) stringRanges(n *node, s string) []bad {
	var out []bad
	if n.minLen > 0 && n.minLen <= maxFitLength {
		out = append(out, lengthened("minLength", s, n.minLen-1, fmt.Sprintf("%s, minLength %d", plural(n.minLen-1, "character"), n.minLen)))
	}
	if n.maxLen >= 0 && n.maxLen < maxFitLength {
		out = append(out, lengthened("maxLength", s, n.maxLen+1, fmt.Sprintf("%s, maxLength %d", plural(n.maxLen+1, "character"), n.maxLen)))
	}
	if re := g.regexp(n.pattern); re != nil && n.pattern != "" { // "" matches every string
		var fallback string
		found := false
		for _, c := range []string{s + "~#!", "~#!", "", " ", "0", "a", s + " ", " " + s} {
			if re.MatchString(c) {
				continue
			}
			if n.lengthOK(c) {
				fallback, found = c, true
				break
			}
			if !found {
				fallback, found = c, true
			}
		}
		if found {
			out = append(out, eager("pattern", fallback, "does not match pattern "+n.pattern))
		}
	}
	if b, ok := badFormatValue(n.format); ok {
		out = append(out, eager("format", b, "not a valid "+n.format))
	}
	return out
}

func numberRanges(n *node, v json.Number) []bad {
	isInt := n.isInteger(v)
	b := n.numBounds(isInt)
	one := big.NewRat(1, 1)
	var out []bad
	if b.lo != nil {
		x, why := new(big.Rat).Sub(b.lo, one), "below minimum"
		if b.loEx {
			x, why = new(big.Rat).Set(b.lo), "equal to exclusiveMinimum"
		}
		out = append(out, eager("min", ratNumber(x), why))
	}
	if b.hi != nil {
		x, why := new(big.Rat).Add(b.hi, one), "above maximum"
		if b.hiEx {
			x, why = new(big.Rat).Set(b.hi), "equal to exclusiveMaximum"
		}
		out = append(out, eager("max", ratNumber(x), why))
	}
	if m := b.step; m != nil && !(isInt && m.Cmp(one) == 0) {
		cur, ok := parseRat(string(v))
		if ok {
			delta := new(big.Rat).Quo(m, big.NewRat(2, 1))
			if isInt {
				delta = one
			}
			x := new(big.Rat).Add(cur, delta)
			out = append(out, eager("multipleOf", ratNumber(x), "not a multiple of "+ratNumber(n.multipleOf).String()))
		}
	}
	return out
}

// isInteger reports whether the location holds integers rather than numbers.
func (n *node) isInteger(v any) bool {
	if n.typed {
		hasInt, hasNum := false, false
		for _, t := range n.types {
			hasInt = hasInt || t == "integer"
			hasNum = hasNum || t == "number"
		}
		if hasInt || hasNum {
			return hasInt && !hasNum
		}
	}
	return jsonType(v) == "integer"
}

func (g *generator) arrayRanges(n *node, arr []any) []bad {
	var out []bad
	if n.minItems > 0 && n.minItems <= len(arr) {
		out = append(out, eager("minItems", append([]any{}, arr[:n.minItems-1]...), fmt.Sprintf("%s, minItems %d", plural(n.minItems-1, "item"), n.minItems)))
	}
	if n.maxItems >= 0 && n.maxItems < maxGenerated && len(arr) > 0 {
		l := max(len(arr), n.maxItems+1)
		grow := func() []any {
			long := append(make([]any, 0, l), arr...)
			for len(long) < l {
				long = append(long, arr[0])
			}
			return long
		}
		show := append([]any{}, arr[:min(len(arr), 40)]...) // 40 items encode to more than short keeps
		for len(show) < min(l, 40) {
			show = append(show, arr[0])
		}
		out = append(out, bad{"maxItems", func() any { return grow() }, sizeOf(arr) + (l-len(arr))*(sizeOf(arr[0])+1),
			short(show), fmt.Sprintf("%s, maxItems %d", plural(l, "item"), n.maxItems)})
	}
	if n.unique && len(arr) > 0 {
		out = append(out, bad{"uniqueItems", func() any { return append(append([]any{}, arr...), arr[0]) },
			sizeOf(arr) + sizeOf(arr[0]) + 1, short(append(append([]any{}, arr...), arr[0])), "a duplicate item, uniqueItems"})
	}
	return out
}

// oversizeKind classifies v for oversize cases: "string", "array",
// "integer", "number", or "" when it gets none.
func oversizeKind(n *node, v any) string {
	switch v.(type) {
	case string:
		return "string"
	case []any:
		return "array"
	case json.Number:
		if n.isInteger(v) {
			return "integer"
		}
		return "number"
	}
	return ""
}

// constraints counts the keywords other than size bounds that could reject a
// huge value for their own reason.
func constraints(n *node) int {
	c := 0
	for _, on := range []bool{n.hasConst, n.hasEnum, n.pattern != "", n.format != "", n.multipleOf != nil, len(n.groups) > 0} {
		if on {
			c++
		}
	}
	return c
}

// Oversize sizes (docs/BEHAVIOUR.md#case-generation): well past any sane limit but cheap to send by
// default, the 1 MiB / 100,000 versions only with Options.Aggressive.
const (
	oversizeString           = 64 << 10
	oversizeItems            = 10000
	oversizeStringAggressive = 1 << 20
	oversizeItemsAggressive  = 100000
)

// huge is one oversize value, made only when its case is kept.
type huge struct {
	variant string
	make    func() any
	size    int // sizeOf the value
	why     string
}

// oversizeValues returns the huge values for v's type.
func oversizeValues(n *node, v any, aggressive bool) []huge {
	chars, items := oversizeString, oversizeItems
	if aggressive {
		chars, items = oversizeStringAggressive, oversizeItemsAggressive
	}
	switch oversizeKind(n, v) {
	case "string":
		return []huge{{"string", func() any { return strings.Repeat("A", chars) }, chars + 2, "a " + humanBytes(chars) + " string"}}
	case "array":
		item := hugeItem(v.([]any), items)
		size := 1 + items*(sizeOf(item)+1)
		if n.unique {
			size += items * len(strconv.Itoa(items))
		}
		return []huge{{"array", func() any { return hugeArray(item, items, n.unique) }, size,
			fmt.Sprintf("a %s-element array", thousands(items))}}
	case "integer", "number":
		return []huge{
			{"1e308", func() any { return json.Number("1e308") }, 5, "1e308"},
			{"min_int64", func() any { return json.Number("-9223372036854775808") }, 20, "-9223372036854775808 (-2^63)"},
		}
	}
	return nil
}

// hugeItem is the item a huge array repeats: the valid array's first item
// when small enough that the array stays within half the argument cap of its
// profile, else a plain "x".
func hugeItem(arr []any, items int) any {
	limit := MaxArgumentBytes / 2 / oversizeItems
	if items > oversizeItems {
		limit = MaxArgumentBytesAggressive / 2 / items
	}
	if len(arr) > 0 && sizeOf(arr[0]) < limit {
		return arr[0]
	}
	return "x"
}

// hugeArray repeats item (varied when items must be unique).
func hugeArray(item any, items int, unique bool) []any {
	out := make([]any, items)
	for i := range out {
		out[i] = distinct(item, i, unique)
	}
	return out
}

// thousands renders n with comma separators: 100000 -> "100,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// distinct varies item i of a huge array when items must be unique.
func distinct(item any, i int, unique bool) any {
	if !unique || i == 0 {
		return item
	}
	switch t := item.(type) {
	case string:
		return t + strconv.Itoa(i)
	case json.Number:
		return json.Number(strconv.Itoa(i))
	}
	return item
}

// refine narrows a node to the anyOf/oneOf branches that fit the value v, so
// mutations inside v see the constraints of the branch it came from.
func (g *generator) refine(n *node, v any) *node {
	for i := 0; i < 8 && len(n.groups) > 0; i++ {
		gr := n.groups[0]
		handled := map[string]bool{gr.key: true}
		for k := range n.handled {
			handled[k] = true
		}
		parts := n.parts
		for j, b := range gr.branches {
			if j >= maxBranches {
				break
			}
			if bn := g.build([]loc{b}, nil); bn.fits(v) {
				parts = append(append([]loc(nil), n.parts...), b)
				break
			}
		}
		n = g.build(parts, handled)
	}
	return n
}

// fits is a cheap check that v could come from this node.
func (n *node) fits(v any) bool {
	if n.never || !n.allows(v) {
		return false
	}
	if n.hasConst && !sameValue(n.constV, v) {
		return false
	}
	if n.hasEnum && !enumHas(n.enum, v) {
		return false
	}
	if obj, ok := v.(map[string]any); ok {
		for _, r := range n.required {
			if !has(obj, r) {
				return false
			}
		}
	}
	return true
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
