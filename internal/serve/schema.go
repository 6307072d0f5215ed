package serve

import (
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
)

// bound is what a property's schema says beyond what inference gives:
// its allowed values, or its range.
type bound struct {
	enum     []any
	min, max float64 // both 0: no range
}

// inputSchema is T's inferred input schema with the enums and ranges of
// its parameters, so that a caller learns the limits from the schema, and
// the SDK refuses what is out of them before a target is started: the
// table's (package options) for the parameters of settings, more's for
// the others.
func inputSchema[T any](more map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("serve: inferring an input schema: %v", err))
	}
	bounds := map[string]bound{}
	for name := range s.Properties {
		if b, ok := paramBound(name); ok {
			bounds[name] = b
		}
	}
	for name, b := range more {
		bounds[name] = b
	}
	for name, b := range bounds {
		p, ok := s.Properties[name]
		if !ok {
			panic(fmt.Sprintf("serve: no property %q to bound", name))
		}
		if b.enum != nil {
			p.Enum = b.enum
		}
		if b.min != 0 || b.max != 0 {
			p.Minimum, p.Maximum = ptr(b.min), ptr(b.max)
		}
	}
	return s
}

// paramBound is what the table says of the parameter name: the values of
// its setting, or its range from 1 to the serve tools' largest value (in
// seconds for a duration).
func paramBound(name string) (bound, bool) {
	o, ok := options.ByParam(name)
	switch {
	case !ok:
		return bound{}, false
	case o.Values != nil:
		b := bound{}
		for _, v := range o.Values {
			b.enum = append(b.enum, v)
		}
		return b, true
	}
	switch m := o.Param.Max.(type) {
	case time.Duration:
		return bound{min: 1, max: m.Seconds()}, true
	case int:
		return bound{min: 1, max: float64(m)}, true
	}
	return bound{}, false
}
