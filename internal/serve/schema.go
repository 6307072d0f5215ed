package serve

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// bound is what a property's schema says beyond what inference gives:
// its allowed values, or its range.
type bound struct {
	enum     []any
	min, max float64 // both 0: no range
}

// inputSchema is T's inferred input schema with the enums and ranges of
// bounds, so that a caller learns the limits from the schema, and the SDK
// refuses what is out of them before a target is started.
func inputSchema[T any](bounds map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("serve: inferring an input schema: %v", err))
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

// targetBounds bound the properties of [Target].
var targetBounds = map[string]bound{
	"era":                     {enum: []any{"auto", "modern", "legacy", "both"}},
	"startup_timeout_seconds": {min: 1, max: maxStartup.Seconds()},
}

// with returns the bounds of m and of more.
func with(m map[string]bound, more map[string]bound) map[string]bound {
	out := map[string]bound{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}
