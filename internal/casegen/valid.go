package casegen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// maxWork bounds how many nodes one Generate call builds before it stops
// trying anyOf/oneOf branches one after another.
const maxWork = 20000

// maxBranches bounds the anyOf/oneOf branches tried for one value.
const maxBranches = 16

// maxGenerated bounds generated arrays (minItems) and objects (minProperties).
const maxGenerated = 1000

// maxValues bounds the values one Generate call generates; the byte bound is
// the argument cap of the profile (nested minItems, minProperties and
// minLength multiply otherwise).
const maxValues = 10000

// generator produces values for one Generate call.
type generator struct {
	s        *Schema
	seed     int64
	work     int // nodes built
	values   int // values generated
	bytes    int // string and key bytes generated
	maxBytes int
	regexps  map[string]*regexp.Regexp
	// limited names the first requirement the generator left unmet because
	// of its bounds, e.g. "minLength 1000000000"; "" when none.
	limited string
}

// full reports that the generation budget is spent: arrays and objects stop
// growing (the result may then miss minItems or minProperties: a gap).
func (g *generator) full() bool {
	return g.values >= maxValues || g.bytes >= g.maxBytes
}

// limit records that a requirement was left unmet because of the bounds.
func (g *generator) limit(what string) {
	if g.limited == "" {
		g.limited = what
	}
}

func newGenerator(s *Schema, seed int64, maxBytes int) *generator {
	return &generator{s: s, seed: seed, maxBytes: maxBytes, regexps: map[string]*regexp.Regexp{}}
}

// root generates the valid arguments from the root node n: always an
// object, whatever the schema says.
func (g *generator) root(n *node) map[string]any {
	if len(n.groups) > 0 {
		if m, ok := g.branch(n, "", 0, 0).(map[string]any); ok {
			return m
		}
	}
	return g.object(n, 0)
}

func (g *generator) value(parts []loc, handled map[string]bool, name string, depth, variant int) any {
	return g.valueOf(g.build(parts, handled), name, depth, variant)
}

func (g *generator) valueOf(n *node, name string, depth, variant int) any {
	g.values++
	if v, ok := n.ownValue(variant); ok {
		return deepCopy(v)
	}
	if len(n.groups) > 0 && depth <= maxDepth {
		return g.branch(n, name, depth, variant)
	}
	switch n.kind() {
	case "object":
		return g.object(n, depth)
	case "array":
		return g.array(n, name, depth)
	case "integer":
		return g.number(n, true, variant)
	case "number":
		return g.number(n, false, variant)
	case "boolean":
		return variant%2 == 1 // false first: the safe choice for flags like "force"
	case "null":
		return nil
	}
	return g.str(n, name, variant)
}

// ownValue is the value the schema names itself: const, then default, then
// enum, then examples; each only when its type is allowed.
func (n *node) ownValue(variant int) (any, bool) {
	if n.hasConst {
		return n.constV, true
	}
	if n.hasDef && variant == 0 && n.allows(n.def) && (!n.hasEnum || enumHas(n.enum, n.def)) {
		return n.def, true
	}
	if n.hasEnum {
		limit := min(len(n.enum), maxGenerated)
		for i := 0; i < limit; i++ {
			if v := n.enum[(variant+i)%limit]; n.allows(v) {
				return v, true
			}
		}
		return n.enum[0], true
	}
	for i := range n.examples {
		if v := n.examples[(variant+i)%len(n.examples)]; n.allows(v) {
			return v, true
		}
	}
	return nil, false
}

// enumHas reports whether v is among the first maxGenerated enum values.
func enumHas(enum []any, v any) bool {
	for i, e := range enum {
		if i >= maxGenerated {
			return false
		}
		if equalJSON(e, v) {
			return true
		}
	}
	return false
}

// branch picks the first anyOf/oneOf branch whose generated value validates
// against the schema that carries the keyword (then against the branch alone).
func (g *generator) branch(n *node, name string, depth, variant int) any {
	gr := n.groups[0]
	handled := map[string]bool{gr.key: true}
	for k := range n.handled {
		handled[k] = true
	}
	with := func(b loc) any {
		parts := append(append([]loc(nil), n.parts...), b)
		return g.value(parts, handled, name, depth, variant)
	}
	if g.work > maxWork || g.full() {
		return with(gr.branches[0])
	}
	var vals []any
	for i, b := range gr.branches {
		if i >= maxBranches {
			break
		}
		v := with(b)
		ok, judged := g.s.validateAt(gr.holder.ptr, v)
		if !judged || ok {
			return v
		}
		vals = append(vals, v)
	}
	for i, v := range vals {
		if ok, _ := g.s.validateAt(gr.branches[i].ptr, v); ok {
			return v
		}
	}
	return vals[0]
}

func (g *generator) object(n *node, depth int) map[string]any {
	obj := map[string]any{}
	if depth >= maxDepth {
		return obj
	}
	add := func(name string) {
		g.bytes += len(name) + 4
		obj[name] = g.value(g.propParts(n, name), nil, name, depth+1, 0)
	}
	for _, name := range n.propNames() {
		if g.full() {
			break // over budget: what is missing shows as a generator gap
		}
		if n.reqSet[name] {
			add(name)
		} else if child := g.build(g.propParts(n, name), nil); child.carriesValue() {
			obj[name] = g.valueOf(child, name, depth+1, 0)
		}
	}
	for _, name := range n.required {
		if _, ok := obj[name]; !ok && !g.full() {
			add(name)
		}
	}
	if n.minProps > len(obj) {
		for _, name := range n.propNames() {
			if _, ok := obj[name]; !ok && len(obj) < n.minProps && !g.full() {
				add(name)
			}
		}
		for i := 1; len(obj) < n.minProps && i <= maxGenerated && !n.addlFalse && !g.full(); i++ {
			if key := "key" + strconv.Itoa(i); !has(obj, key) {
				add(key)
			}
		}
	}
	g.checkObject(n, obj)
	return obj
}

// checkObject records a limit when the bounds, not the schema, left obj
// without a required property or short of minProperties.
func (g *generator) checkObject(n *node, obj map[string]any) {
	for _, name := range n.required {
		if !has(obj, name) {
			g.limit(thousands(len(n.required)) + " required properties")
			return
		}
	}
	if len(obj) < n.minProps && (g.full() || !n.addlFalse) {
		g.limit(fmt.Sprintf("minProperties %d", n.minProps))
	}
}

func (g *generator) array(n *node, name string, depth int) []any {
	if depth >= maxDepth {
		return []any{}
	}
	c := max(n.minItems, 1)
	if n.maxItems >= 0 && c > n.maxItems {
		c = n.maxItems
	}
	c = min(c, maxGenerated)
	arr := make([]any, 0, c)
	item := singular(name)
	seen := map[string]bool{}
	for i := 0; i < c && (i == 0 || !g.full()); i++ {
		if !n.unique {
			arr = append(arr, g.value(n.itemParts(i), nil, item, depth+1, 0))
			continue
		}
		var v any
		for try := 0; try < 4; try++ { // vary the items until they are distinct
			v = g.value(n.itemParts(i), nil, item, depth+1, i+try*c)
			if !seen[string(encode(v))] {
				break
			}
		}
		seen[string(encode(v))] = true
		arr = append(arr, v)
	}
	if len(arr) < n.minItems && (n.maxItems < 0 || n.maxItems >= n.minItems) {
		g.limit(fmt.Sprintf("minItems %d", n.minItems))
	}
	return arr
}

func has(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// singular names an array's item after the array: "urls" -> "url".
func singular(name string) string {
	if strings.HasSuffix(name, "s") && len(name) > 1 {
		return name[:len(name)-1]
	}
	return name
}

// regexp compiles (and caches) a pattern with Go's engine; nil when it cannot.
func (g *generator) regexp(p string) *regexp.Regexp {
	if re, ok := g.regexps[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	g.regexps[p] = re
	return re
}
