package casegen

import (
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// node is the effective view of one location of the schema: its parts
// ($ref targets, allOf branches, chosen anyOf/oneOf branches) merged.
type node struct {
	parts   []loc
	handled map[string]bool // anyOf/oneOf keyword locations already resolved into parts

	never bool     // a false schema: nothing is valid
	typed bool     // some part declared "type"
	types []string // allowed JSON types (meaningful when typed)

	hasConst bool
	constV   any
	hasEnum  bool
	enum     []any // shared with the document, never copied
	hasDef   bool
	def      any
	examples []any

	format, pattern string
	minLen, maxLen  int // -1: unset
	lo, hi          *big.Rat
	loEx, hiEx      bool
	multipleOf      *big.Rat

	minItems, maxItems int // -1: unset
	unique             bool
	minProps           int // -1: unset

	props     map[string][]loc
	patProps  []patProp
	required  []string
	reqSet    map[string]bool
	addl      []loc
	addlFalse bool
	items     []loc
	tuple     []loc

	groups []group // unresolved anyOf / oneOf
}

type patProp struct {
	pattern string
	at      loc
}

// group is one anyOf or oneOf keyword.
type group struct {
	key      string // pointer of the keyword, e.g. "/properties/x/anyOf"
	holder   loc    // the schema object that carries the keyword
	branches []loc
}

// build merges parts into one node, following local $ref and allOf. It stops
// after maxRefChain parts, so reference cycles cannot hang it.
func (g *generator) build(parts []loc, handled map[string]bool) *node {
	g.work++
	n := &node{parts: parts, handled: handled, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1,
		props: map[string][]loc{}, reqSet: map[string]bool{}}
	queue := append([]loc(nil), parts...)
	seen := map[string]bool{}
	for i := 0; i < len(queue) && i < maxRefChain; i++ {
		l := queue[i]
		if seen[l.ptr] {
			continue
		}
		seen[l.ptr] = true
		queue = n.absorb(g.s.res, l, queue)
	}
	return n
}

func (n *node) absorb(res *resolver, l loc, queue []loc) []loc {
	m, ok := l.v.(map[string]any)
	if !ok {
		if b, isBool := l.v.(bool); isBool && !b {
			n.never = true
		}
		return queue
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if ref, ok := m[kw].(string); ok {
			if target, ok := res.lookup(ref); ok {
				queue = append(queue, target)
			}
		}
	}
	if all, ok := m["allOf"].([]any); ok {
		for i, e := range all {
			queue = append(queue, l.child(e, "allOf", strconv.Itoa(i)))
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		key := l.ptr + "/" + kw
		if br, ok := m[kw].([]any); ok && len(br) > 0 && !n.handled[key] {
			gr := group{key: key, holder: l}
			for i, e := range br {
				gr.branches = append(gr.branches, l.child(e, kw, strconv.Itoa(i)))
			}
			n.groups = append(n.groups, gr)
		}
	}
	n.absorbType(m["type"])
	n.absorbValues(m)
	n.absorbBounds(m)
	n.absorbObject(l, m)
	n.absorbArray(l, m)
	return queue
}

func (n *node) absorbType(t any) {
	var ts []string
	switch v := t.(type) {
	case string:
		ts = []string{v}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				ts = append(ts, s)
			}
		}
	default:
		return
	}
	if !n.typed {
		n.typed, n.types = true, ts
		return
	}
	var out []string
	for _, a := range n.types {
		for _, b := range ts {
			switch {
			case a == b:
				out = append(out, a)
			case a == "integer" && b == "number", a == "number" && b == "integer":
				out = append(out, "integer")
			}
		}
	}
	n.types = out
}

func (n *node) absorbValues(m map[string]any) {
	if v, ok := m["const"]; ok && !n.hasConst {
		n.hasConst, n.constV = true, v
	}
	if v, ok := m["enum"].([]any); ok && !n.hasEnum && len(v) > 0 {
		n.hasEnum, n.enum = true, v
	}
	if v, ok := m["default"]; ok && !n.hasDef {
		n.hasDef, n.def = true, v
	}
	if v, ok := m["examples"].([]any); ok && n.examples == nil && len(v) > 0 {
		n.examples = v
	}
	if v, ok := m["format"].(string); ok && n.format == "" {
		n.format = v
	}
	if v, ok := m["pattern"].(string); ok && n.pattern == "" {
		n.pattern = v
	}
}

func (n *node) absorbBounds(m map[string]any) {
	n.minLen = maxInt(n.minLen, count(m["minLength"]))
	n.maxLen = minInt(n.maxLen, count(m["maxLength"]))
	n.minItems = maxInt(n.minItems, count(m["minItems"]))
	n.maxItems = minInt(n.maxItems, count(m["maxItems"]))
	n.minProps = maxInt(n.minProps, count(m["minProperties"]))
	if u, ok := m["uniqueItems"].(bool); ok && u {
		n.unique = true
	}
	if r := rat(m["multipleOf"]); r != nil && r.Sign() > 0 && n.multipleOf == nil {
		n.multipleOf = r
	}
	exMin, _ := m["exclusiveMinimum"].(bool) // draft-04
	exMax, _ := m["exclusiveMaximum"].(bool)
	if r := rat(m["minimum"]); r != nil {
		n.setLo(r, exMin)
	}
	if r := rat(m["exclusiveMinimum"]); r != nil {
		n.setLo(r, true)
	}
	if r := rat(m["maximum"]); r != nil {
		n.setHi(r, exMax)
	}
	if r := rat(m["exclusiveMaximum"]); r != nil {
		n.setHi(r, true)
	}
}

func (n *node) setLo(r *big.Rat, ex bool) {
	if n.lo == nil || r.Cmp(n.lo) > 0 || (r.Cmp(n.lo) == 0 && ex) {
		n.lo, n.loEx = r, ex
	}
}

func (n *node) setHi(r *big.Rat, ex bool) {
	if n.hi == nil || r.Cmp(n.hi) < 0 || (r.Cmp(n.hi) == 0 && ex) {
		n.hi, n.hiEx = r, ex
	}
}

func (n *node) absorbObject(l loc, m map[string]any) {
	if props, ok := m["properties"].(map[string]any); ok {
		for k, v := range props {
			n.props[k] = append(n.props[k], l.child(v, "properties", k))
		}
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, k := range sortedKeys(pp) {
			n.patProps = append(n.patProps, patProp{k, l.child(pp[k], "patternProperties", k)})
		}
	}
	if req, ok := m["required"].([]any); ok {
		for _, e := range req {
			if s, ok := e.(string); ok && !n.reqSet[s] {
				n.reqSet[s] = true
				n.required = append(n.required, s)
			}
		}
	}
	switch a := m["additionalProperties"].(type) {
	case bool:
		if !a {
			n.addlFalse = true
		}
	case map[string]any:
		n.addl = append(n.addl, l.child(a, "additionalProperties"))
	}
}

func (n *node) absorbArray(l loc, m map[string]any) {
	if pi, ok := m["prefixItems"].([]any); ok && n.tuple == nil {
		for i, e := range pi {
			n.tuple = append(n.tuple, l.child(e, "prefixItems", strconv.Itoa(i)))
		}
	}
	switch it := m["items"].(type) {
	case []any: // draft-04..07 tuple form
		if n.tuple == nil {
			for i, e := range it {
				n.tuple = append(n.tuple, l.child(e, "items", strconv.Itoa(i)))
			}
		}
		if ai, ok := m["additionalItems"]; ok {
			n.items = append(n.items, l.child(ai, "additionalItems"))
		}
	case map[string]any, bool:
		n.items = append(n.items, l.child(it, "items"))
	}
}

// kind is the JSON type to generate: the first allowed non-null type, or one
// inferred from the keywords when no type is declared.
func (n *node) kind() string {
	if n.typed {
		for _, t := range n.types {
			if t != "null" {
				return t
			}
		}
		if len(n.types) > 0 {
			return "null"
		}
		return "string" // contradictory types: nothing is valid anyway
	}
	switch {
	case len(n.props) > 0 || len(n.required) > 0 || len(n.patProps) > 0 || len(n.addl) > 0 || n.addlFalse || n.minProps >= 0:
		return "object"
	case len(n.items) > 0 || len(n.tuple) > 0 || n.minItems >= 0 || n.maxItems >= 0 || n.unique:
		return "array"
	case n.lo != nil || n.hi != nil || n.multipleOf != nil:
		return "number"
	}
	return "string"
}

// allows reports whether v's type is allowed here (no declared type allows all).
func (n *node) allows(v any) bool {
	if !n.typed {
		return true
	}
	return typeAllowed(n.types, v)
}

// propNames lists the declared property names, sorted.
func (n *node) propNames() []string {
	names := make([]string, 0, len(n.props))
	for k := range n.props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// propParts returns the schema parts that apply to property name.
func (g *generator) propParts(n *node, name string) []loc {
	parts := append([]loc(nil), n.props[name]...)
	for _, pp := range n.patProps {
		if re := g.regexp(pp.pattern); re != nil && re.MatchString(name) {
			parts = append(parts, pp.at)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, n.addl...)
	}
	return parts
}

// itemParts returns the schema parts that apply to array item i.
func (n *node) itemParts(i int) []loc {
	if i < len(n.tuple) {
		return []loc{n.tuple[i]}
	}
	return n.items
}

// carriesValue reports whether the node names a value of its own (const, enum,
// default or examples): such optional properties are cheap and safe to send.
func (n *node) carriesValue() bool {
	return n.hasConst || n.hasEnum || n.hasDef || len(n.examples) > 0
}

func rat(v any) *big.Rat {
	num, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := parseRat(string(num))
	if !ok {
		return nil
	}
	return r
}

// parseRat parses a JSON number exactly, refusing absurd exponents (a bound
// like 1e99999 is ignored rather than expanded to 100,000 digits).
func parseRat(s string) (*big.Rat, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || exp > 400 || exp < -400 {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}

// count reads a non-negative integer keyword; -1 when absent or malformed.
func count(v any) int {
	r := rat(v)
	if r == nil || r.Sign() < 0 || !r.IsInt() {
		return -1
	}
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<30 {
		return 1 << 30
	}
	return int(r.Num().Int64())
}

// maxInt and minInt merge bounds where -1 means unset.
func maxInt(a, b int) int {
	if a < 0 || b > a {
		return b
	}
	return a
}

func minInt(a, b int) int {
	if b < 0 {
		return a
	}
	if a < 0 || b < a {
		return b
	}
	return a
}
