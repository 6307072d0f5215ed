package casegen

import (
	"fmt"
	"strconv"
	"strings"
)

// Generate returns the cases for one tool: the valid call first, then the
// mutations grouped by kind (in the order of the Kind constants), each group
// in property order. The same schema, options and version always give the
// same plan.
//
// The plan is bounded: at most opts.Budget cases (when positive), none whose
// arguments would exceed [MaxArgumentBytes] ([MaxArgumentBytesAggressive]
// with opts.Aggressive), and only the kept cases' arguments are ever built.
func Generate(tool string, s *Schema, opts Options) (plan Plan) {
	if recoverPanics {
		defer func() {
			if r := recover(); r != nil {
				plan = failedPlan(tool, r)
			}
		}()
	}
	e := enumerate(tool, s, opts)
	plan = Plan{Dropped: e.dropped, TooLarge: e.tooLarge, DroppedRequired: e.droppedRequired}
	for k, i := range e.keep {
		c, err := e.s.materialize(e.ids[k], tool, e.specs[i])
		if i == 0 && err != nil && e.gap == "" {
			e.gap = oneLine(err)
		}
		plan.Cases = append(plan.Cases, c)
	}
	plan.GeneratorGap = e.gap
	return plan
}

// Regenerate returns the case with id caseID exactly as [Generate] with the
// same tool, schema and options makes it (the same arguments, byte for
// byte), building no other case's arguments. ok is false when Generate's
// plan has no such case.
func Regenerate(tool string, s *Schema, opts Options, caseID string) (c Case, ok bool) {
	if recoverPanics {
		defer func() {
			if r := recover(); r != nil {
				c, ok = Case{}, false
				if p := failedPlan(tool, r); p.Cases[0].ID == caseID {
					c, ok = p.Cases[0], true
				}
			}
		}()
	}
	e := enumerate(tool, s, opts)
	for k, id := range e.ids {
		if id == caseID {
			c, _ = e.s.materialize(id, tool, e.specs[e.keep[k]])
			return c, true
		}
	}
	return Case{}, false
}

// failedPlan is the plan of a Generate call that panicked: the empty
// arguments as the valid call, and the panic as the generator gap.
func failedPlan(tool string, r any) Plan {
	return Plan{
		Cases:        []Case{{ID: tool + "/" + string(Valid), Tool: tool, Kind: Valid, Arguments: encode(map[string]any{}), Description: "empty arguments (case generation failed)"}},
		GeneratorGap: fmt.Sprintf("case generation failed: %v", r),
	}
}

// enumeration is a plan before any arguments are built: every spec, the
// ones the budget keeps and their final ids.
type enumeration struct {
	s     *Schema
	specs []spec
	keep  []int    // indices into specs, in order
	ids   []string // the id of each kept spec
	gap   string   // known before validation: an unusable example, a bound hit

	dropped, tooLarge, droppedRequired int
}

func enumerate(tool string, s *Schema, opts Options) *enumeration {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if s == nil || s.res == nil {
		s, _ = Compile(nil)
	}
	capBytes := argumentCap(opts)
	g := newGenerator(s, opts.Seed, capBytes)
	root := g.build([]loc{{v: s.doc}}, nil)

	var valid map[string]any
	desc, gap := "valid call generated from the schema", ""
	if opts.Example != nil {
		ex, err := normalize(opts.Example)
		if m, ok := ex.(map[string]any); ok && err == nil {
			valid, desc = m, "valid call from the user example"
		} else {
			gap = "the example arguments cannot be used: they do not encode as a JSON object"
		}
	}
	if valid == nil {
		valid = g.root(root)
		if g.limited != "" {
			gap = fmt.Sprintf("the schema asks for more than mcp-fuzz generates for one call (%s; bounds: %s values, %s): the valid call is incomplete",
				g.limited, thousands(maxValues), humanBytes(capBytes))
		}
	}
	validSpec := spec{kind: Valid, desc: desc, base: valid}
	baseSize := sizeOf(valid)
	if baseSize > capBytes {
		gap = fmt.Sprintf("the valid arguments would take %d bytes, more than the %s one call may carry: not built (only mutations that shrink them are)",
			baseSize, humanBytes(capBytes))
		validSpec = spec{kind: Valid, desc: "empty arguments (the valid call is too large to build)", base: map[string]any{}}
	}

	w := newWalker(g, opts, valid, baseSize)
	w.object(site{}, g.refine(root, valid), valid)
	w.oversize()
	w.structural(root)
	specs := []spec{validSpec}
	for _, k := range kindOrder {
		specs = append(specs, w.byKind[k]...)
	}

	e := &enumeration{s: s, specs: specs, gap: gap, tooLarge: w.tooLarge}
	var droppedRequired int
	e.keep, e.dropped, droppedRequired = applyBudget(specs, opts.Budget, opts.Seed)
	e.dropped += w.tooLarge
	e.droppedRequired = droppedRequired + w.tooLargeRequired
	seen := map[string]int{}
	for _, i := range e.keep {
		id := caseID(tool, specs[i])
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id += "#" + strconv.Itoa(n+1)
		} else {
			seen[id] = 1
		}
		e.ids = append(e.ids, id)
	}
	return e
}

// materialize builds the case for sp. err is the validator's verdict on the
// arguments (nil when valid or when the schema did not compile).
func (s *Schema) materialize(id, tool string, sp spec) (Case, error) {
	args := sp.base
	if sp.apply != nil {
		args = deepCopy(sp.base)
		for _, a := range sp.pre {
			args = setAt(args, a.path, deepCopy(a.value))
		}
		args = sp.apply(args)
	}
	c := Case{
		ID:          id,
		Tool:        tool,
		Kind:        sp.kind,
		Pointer:     pointer(sp.path),
		Nested:      sp.nested,
		Arguments:   encode(args),
		Description: sp.desc,
	}
	var err error
	if s.Compiled() && sp.kind != Structural {
		err = s.validateValue(args)
	}
	switch {
	case sp.kind == Structural:
		c.Forbidden = true
	case s.Compiled():
		c.Forbidden = err != nil
	default:
		c.Forbidden = sp.hint
	}
	return c, err
}

// caseID is "TOOL/KIND[/POINTER-without-leading-slash][#variant]".
func caseID(tool string, sp spec) string {
	var b strings.Builder
	b.WriteString(tool)
	b.WriteByte('/')
	b.WriteString(string(sp.kind))
	b.WriteString(pointer(sp.path))
	if sp.variant != "" {
		b.WriteByte('#')
		b.WriteString(sp.variant)
	}
	return b.String()
}
