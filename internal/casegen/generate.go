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
func Generate(tool string, s *Schema, opts Options) (plan Plan) {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if s == nil || s.res == nil {
		s, _ = Compile(nil)
	}
	if recoverPanics {
		defer func() {
			if r := recover(); r != nil {
				plan = Plan{
					Cases:        []Case{{ID: tool + "/" + string(Valid), Tool: tool, Kind: Valid, Arguments: encode(map[string]any{}), Description: "empty arguments (case generation failed)"}},
					GeneratorGap: fmt.Sprintf("case generation failed: %v", r),
				}
			}
		}()
	}
	g := newGenerator(s, opts.Seed)
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
		valid = g.root()
	}

	w := newWalker(g, opts, valid)
	w.object(site{}, g.refine(root, valid), valid)
	w.oversize()
	w.structural(root)
	specs := []spec{{kind: Valid, desc: desc, base: valid}}
	for _, k := range kindOrder {
		specs = append(specs, w.byKind[k]...)
	}

	keep, dropped := applyBudget(specs, opts.Budget, opts.Seed)
	plan.Dropped = dropped
	seen := map[string]int{}
	for _, i := range keep {
		c, err := s.materialize(tool, specs[i])
		if i == 0 && err != nil && gap == "" {
			gap = oneLine(err)
		}
		if n := seen[c.ID]; n > 0 {
			seen[c.ID] = n + 1
			c.ID += "#" + strconv.Itoa(n+1)
		} else {
			seen[c.ID] = 1
		}
		plan.Cases = append(plan.Cases, c)
	}
	plan.GeneratorGap = gap
	return plan
}

// materialize builds the case for sp. err is the validator's verdict on the
// arguments (nil when valid or when the schema did not compile).
func (s *Schema) materialize(tool string, sp spec) (Case, error) {
	args := sp.base
	if sp.apply != nil {
		args = deepCopy(sp.base)
		for _, a := range sp.pre {
			args = setAt(args, a.path, deepCopy(a.value))
		}
		args = sp.apply(args)
	}
	c := Case{
		ID:          caseID(tool, sp),
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
