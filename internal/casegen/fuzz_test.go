package casegen

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzCompileGenerate feeds arbitrary bytes as an inputSchema: Compile and
// Generate must not panic, the valid case comes first, every case that is
// not structural sends a JSON object, and Regenerate rebuilds a case exactly.
func FuzzCompileGenerate(f *testing.F) {
	for _, seed := range []string{
		createItem,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^[^\\x00-\\x7f]+$"}},"required":["a"]}`,
		`{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"]}`,
		`{"$defs":{"a":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"integer"},"b":{"oneOf":[{"type":"null"},{"type":"array","items":{"enum":[1,2]},"uniqueItems":true,"minItems":2}]}}}`,
		`{"type":"object","properties":"x","required":"y"}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":1e400,"multipleOf":1e-400}}}`,
		`{"type":"object","properties":{"s":{"type":"string","minLength":3,"maxLength":1,"format":"email"}}}`,
		`[]`, `"x"`, `null`, `true`, `{}`, ``,
		nested(40),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, _ := Compile(json.RawMessage(raw))
		p := Generate("fuzz", s, Options{Budget: 30})
		checkPlanShape(t, p)
		c := p.Cases[len(p.Cases)/2]
		if got, ok := Regenerate("fuzz", s, Options{Budget: 30}, c.ID); !ok || !reflect.DeepEqual(got, c) {
			t.Errorf("Regenerate(%s) differs from Generate", c.ID)
		}
	})
}
