package casegen

import (
	"fmt"
	"sort"
	"strconv"
)

// extraKey is the unknown property that extra_property cases add.
const extraKey = "mcp_fuzz_unexpected"

// maxLocations bounds the values one plan mutates (wide or deep schemas).
const maxLocations = 2000

// spec is a case before it is materialized: materializing (copying the base,
// applying pre and the change, encoding, validating) happens only for the
// cases the budget keeps.
type spec struct {
	kind    Kind
	path    []string // the mutated location (for extra_property: the object)
	variant string
	nested  bool
	desc    string
	base    any                // the valid arguments; never modified
	pre     []assign           // valid values added first (absent optional properties, a first array item)
	apply   func(args any) any // changes the prepared copy, returns the arguments
	hint    bool               // forbidden, as judged without a compiled schema
	size    int                // upper bound of the encoded arguments, known before they are built
}

// assign stores a valid value at a path before a mutation is applied.
type assign struct {
	path  []string
	value any
}

// site is one location being walked.
type site struct {
	pre     []assign
	preSize int // sizeOf the pre values, summed
	path    []string
	label   string // for humans: owner.id, tags[0].label
	depth   int
}

func (s site) child(tok, label string) site {
	return site{pre: s.pre, preSize: s.preSize, path: appendPath(s.path, tok), label: label, depth: s.depth + 1}
}

func (s site) with(a assign) site {
	pre := make([]assign, len(s.pre), len(s.pre)+1)
	copy(pre, s.pre)
	s.pre = append(pre, a)
	s.preSize += sizeOf(a.value)
	if len(a.path) > 0 { // the key and separators when the value is new
		s.preSize += stringSize(a.path[len(a.path)-1]) + 2
	}
	return s
}

// walker enumerates the mutations of the valid arguments, property by
// property (sorted), depth first, into one list per kind.
type walker struct {
	g         *generator
	opts      Options
	base      any
	baseSize  int // sizeOf(base)
	cap       int // argumentCap(opts)
	byKind    map[Kind][]spec
	strings   int // string locations seen (rotates the probes)
	locations int

	candidates []oversizeCandidate // top-level properties, in walk order

	tooLarge         int // specs not kept because their arguments would exceed cap
	tooLargeRequired int // of which missing_required
}

func newWalker(g *generator, opts Options, base any, baseSize int) *walker {
	return &walker{g: g, opts: opts, base: base, baseSize: baseSize, cap: argumentCap(opts), byKind: map[Kind][]spec{}}
}

// add keeps s unless its arguments would exceed the cap: then it is only
// counted, and never built.
func (w *walker) add(s spec) {
	if s.size > w.cap {
		w.tooLarge++
		if s.kind == MissingRequired {
			w.tooLargeRequired++
		}
		return
	}
	w.byKind[s.kind] = append(w.byKind[s.kind], s)
}

// sizeAt bounds the arguments of a case at the site whose change adds extra
// bytes to the valid arguments.
func (w *walker) sizeAt(at site, extra int) int { return w.baseSize + at.preSize + extra }

// set returns a spec change that stores v at path. v is shared, not copied:
// nothing changes the arguments after this last step.
func set(path []string, v any) func(any) any {
	return func(args any) any { return setAt(args, path, v) }
}

// setMade is set for a value made only when the case is built.
func setMade(path []string, make func() any) func(any) any {
	return func(args any) any { return setAt(args, path, make()) }
}

func (w *walker) object(at site, n *node, obj map[string]any) {
	if at.depth >= maxDepth {
		return
	}
	if !has(obj, extraKey) {
		where := "the arguments"
		if len(at.path) > 0 {
			where = strconv.Quote(at.label)
		}
		path := at.path
		w.add(spec{kind: ExtraProperty, path: path, nested: len(path) >= 1, base: w.base, pre: at.pre, size: w.sizeAt(at, len(extraKey)+7),
			desc: fmt.Sprintf("add unknown property %q to %s", extraKey, where),
			apply: func(args any) any {
				if o, ok := mustGet(args, path).(map[string]any); ok {
					o[extraKey] = "x"
				}
				return args
			}})
	}
	for _, name := range propertyOrder(n, obj) {
		if w.locations >= maxLocations {
			return
		}
		label := name
		if at.label != "" {
			label = at.label + "." + name
		}
		c := at.child(name, label)
		child := w.g.build(w.g.propParts(n, name), nil)
		v, present := obj[name]
		if !present { // an absent optional property: add a valid value first
			v = w.g.valueOf(child, name, c.depth, 0)
			c = c.with(assign{c.path, v})
		}
		w.location(c, w.g.refine(child, v), v, present && n.reqSet[name])
	}
}

// propertyOrder is the sorted union of declared, present and required names.
func propertyOrder(n *node, obj map[string]any) []string {
	seen := map[string]bool{}
	var names []string
	for _, group := range [][]string{n.propNames(), sortedKeys(obj), n.required} {
		for _, k := range group {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	return names
}

func (w *walker) array(at site, n *node, arr []any) {
	if at.depth >= maxDepth {
		return
	}
	item := w.g.build(n.itemParts(0), nil)
	if len(arr) == 0 { // add one valid item first, when the array may hold one
		if n.maxItems == 0 {
			return
		}
		arr = []any{w.g.valueOf(item, singular(at.path[len(at.path)-1]), at.depth+1, 0)}
		at = at.with(assign{at.path, arr})
	}
	w.location(at.child("0", at.label+"[0]"), w.g.refine(item, arr[0]), arr[0], false)
}

// location emits every mutation of the value v at the site, then descends into it.
func (w *walker) location(at site, n *node, v any, required bool) {
	if w.locations++; w.locations > maxLocations {
		return
	}
	path, label := at.path, strconv.Quote(at.label)
	// extra is how many bytes the change adds at most; a value that replaces
	// v adds its size minus vs.
	vs := sizeOf(v)
	mk := func(k Kind, variant, desc string, apply func(any) any, hint bool, extra int) {
		w.add(spec{kind: k, path: path, variant: variant, nested: len(path) >= 2, desc: desc, base: w.base, pre: at.pre, apply: apply, hint: hint,
			size: w.sizeAt(at, extra)})
	}
	if required {
		mk(MissingRequired, "", "drop required property "+label,
			func(args any) any { return deleteAt(args, path) }, true, -vs)
	}
	wrong := wrongValue(n, v)
	mk(WrongType, "", fmt.Sprintf("set %s to %s (%s) instead of %s", label, short(wrong), jsonType(wrong), n.typeLabel(v)),
		set(path, wrong), n.typed && !typeAllowed(n.types, wrong), sizeOf(wrong)-vs)
	if v != nil {
		mk(Null, "", "set "+label+" to null", set(path, nil), n.typed && !typeAllowed(n.types, nil), 4-vs)
	}
	if bad, ok := outsideEnum(n, v); ok {
		mk(OutOfEnum, "", fmt.Sprintf("set %s to %s, outside its enum/const", label, short(bad)), set(path, bad), false, sizeOf(bad)-vs)
	}
	for _, r := range w.g.ranges(n, v) {
		mk(OutOfRange, r.variant, fmt.Sprintf("set %s to %s (%s)", label, r.show, r.why), setMade(path, r.make), false, r.size-vs)
	}
	if len(path) == 1 {
		w.candidates = append(w.candidates, oversizeCandidate{at, n, v, vs, required})
	}
	if _, ok := v.(string); ok {
		if w.opts.Aggressive {
			for _, p := range pickProbes(w.opts.Seed, w.strings) {
				mk(Probe, p.name, fmt.Sprintf("set %s to a %s probe string", label, p.desc),
					func(args any) any { return setAt(args, path, p.value()) }, false, p.size-vs)
			}
		}
		w.strings++
	}
	switch t := v.(type) {
	case map[string]any:
		w.object(at, n, t)
	case []any:
		w.array(at, n, t)
	}
}

type oversizeCandidate struct {
	at       site
	n        *node
	v        any
	size     int // sizeOf(v)
	required bool
}

// rank orders candidates: required properties (the tool surely reads them)
// with few other constraints first.
func (c oversizeCandidate) rank() int {
	r := 2 * constraints(c.n)
	if !c.required {
		r++
	}
	return r
}

// oversize adds the huge values: per value type, once, at the first top-level
// property of that type with the fewest other constraints (so that the size,
// not a pattern or an enum, is what the schema judges).
func (w *walker) oversize() {
	best := map[string]int{}
	for i, c := range w.candidates {
		k := oversizeKind(c.n, c.v)
		if j, seen := best[k]; k != "" && (!seen || c.rank() < w.candidates[j].rank()) {
			best[k] = i
		}
	}
	for i, c := range w.candidates {
		if k := oversizeKind(c.n, c.v); k == "" || best[k] != i {
			continue
		}
		for _, o := range oversizeValues(c.n, c.v, w.opts.Aggressive) {
			w.add(spec{kind: Oversize, path: c.at.path, variant: o.variant, base: w.base, pre: c.at.pre,
				desc:  fmt.Sprintf("set %q to %s", c.at.label, o.why),
				apply: setMade(c.at.path, o.make), size: w.sizeAt(c.at, o.size-c.size)})
		}
	}
}

// structural adds the cases whose arguments are not an object at all.
func (w *walker) structural(root *node) {
	add := func(variant, desc string, v any) {
		w.add(spec{kind: Structural, variant: variant, desc: desc, hint: true,
			apply: func(any) any { return v }, size: sizeOf(v)})
	}
	add("array", "send arguments as an array instead of an object", []any{})
	add("string", "send arguments as a string instead of an object", "str")
	add("null", "send arguments as null instead of an object", nil)
	if len(root.required) > 0 {
		add("empty_object", "send an empty object although properties are required", map[string]any{})
	}
}

func mustGet(v any, path []string) any {
	out, _ := getAt(v, path)
	return out
}
