package casegen

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func bigEnumSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","required":["pick"],"properties":{"pick":{"type":"string","enum":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote("v" + strconv.Itoa(i)))
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// Every malformed input returns Problems, never panics, and still yields a
// usable plan whose non-structural arguments are JSON objects.
func TestMalformedSchemas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		raw      string
		codes    []string
		compiled bool
	}{
		{"string", `"just a string"`, []string{"schema_not_object"}, false},
		{"array", `[{"type":"object"}]`, []string{"schema_not_object"}, false},
		{"null", `null`, []string{"schema_not_object"}, false},
		{"number", `42`, []string{"schema_not_object"}, false},
		{"missing", ``, []string{"schema_not_object"}, false},
		{"invalid json", `{"type":`, []string{"schema_invalid_json"}, false},
		{"root type string", `{"type":"string"}`, []string{"root_type_not_object"}, true},
		{"properties not object", `{"type":"object","properties":"nope","required":["a"]}`, []string{"properties_not_object", "schema_does_not_compile"}, false},
		{"properties array", `{"type":"object","properties":[{"type":"string"}]}`, []string{"properties_not_object"}, false},
		{"required string", `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`, []string{"required_not_string_list"}, false},
		{"required mixed", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a",7]}`, []string{"required_not_string_list"}, false},
		{"property schema true", `{"type":"object","properties":{"a":true},"required":["a"]}`, []string{"property_schema_boolean"}, true},
		{"property schema false", `{"type":"object","properties":{"a":false}}`, []string{"property_schema_boolean"}, true},
		{"property schema number", `{"type":"object","properties":{"a":5,"b":"x"},"required":["a","b"]}`, []string{"subschema_not_object"}, false},
		{"5000-deep properties", nested(5000), []string{"schema_too_deep"}, true},
		{"5000-deep items", nestedItems(5000), []string{"schema_too_deep"}, true},
		{"ref chain cycle", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}},"required":["x"]}`, []string{"ref_cycle"}, true},
		{"ref to root", `{"$ref":"#","type":"object"}`, []string{"ref_cycle"}, true},
		{"ref cycle through allOf", `{"type":"object","$defs":{"n":{"allOf":[{"$ref":"#/$defs/n"}]}},"properties":{"x":{"$ref":"#/$defs/n"}}}`, []string{"ref_cycle"}, true},
		{"recursive required", `{"type":"object","properties":{"child":{"$ref":"#"}},"required":["child"]}`, nil, true},
		{"huge enum", bigEnumSchema(100000), []string{"huge_enum"}, true},
		{"remote ref https", `{"type":"object","properties":{"a":{"$ref":"https://example.com/schema.json"}},"required":["a"]}`, []string{"remote_ref", "schema_does_not_compile"}, false},
		{"remote ref file", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, []string{"remote_ref", "schema_does_not_compile"}, false},
		{"relative remote ref", `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, []string{"remote_ref", "schema_does_not_compile"}, false},
		{"unresolvable ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}},"required":["a"]}`, []string{"unresolvable_ref", "schema_does_not_compile"}, false},
		{"unsupported pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=.*\\d)\\w+$"}},"required":["a"]}`, []string{"pattern_unsupported"}, true},
		{"bad type", `{"type":"object","properties":{"a":{"type":5},"b":{"type":"strin"}}}`, []string{"unknown_type", "schema_does_not_compile"}, false},
		{"enum not array", `{"type":"object","properties":{"a":{"enum":"x"}}}`, []string{"enum_not_array"}, false},
		{"empty enum", `{"type":"object","properties":{"a":{"enum":[]}},"required":["a"]}`, []string{"enum_empty"}, true},
		{"absurd exponent", `{"type":"object","properties":{"a":{"type":"number","minimum":1e99999}},"required":["a"]}`, nil, true},
		{"unknown $schema", `{"$schema":"https://example.com/my-meta","type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, []string{"unknown_metaschema"}, true},
		{"many problems", manyProblems(500), []string{"subschema_not_object", "problems_truncated"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, probs := Compile(json.RawMessage(tt.raw))
			for _, code := range tt.codes {
				if !hasProblem(probs, code) {
					t.Errorf("missing problem %q; got %+v", code, probs)
				}
			}
			for _, p := range probs {
				if p.Code == "" || (p.Severity != SevError && p.Severity != SevWarning && p.Severity != SevInfo) || p.Message == "" {
					t.Errorf("malformed problem %+v", p)
				}
			}
			if s.Compiled() != tt.compiled {
				t.Errorf("Compiled() = %v, want %v (problems %+v)", s.Compiled(), tt.compiled, probs)
			}
			p := Generate("t", s, Options{Budget: 40})
			checkPlanShape(t, p)
		})
	}
}

// BenchmarkCompileHostile compiles and plans the largest malformed schemas
// TestMalformedSchemas feeds in: thousands of levels, a huge enum, hundreds
// of problems. Each should cost about what its size does.
func BenchmarkCompileHostile(b *testing.B) {
	for name, raw := range map[string]string{
		"5000-deep properties": nested(5000),
		"5000-deep items":      nestedItems(5000),
		"huge enum":            bigEnumSchema(100000),
		"many problems":        manyProblems(500),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				s, _ := Compile(json.RawMessage(raw))
				Generate("t", s, Options{Budget: 40})
			}
		})
	}
}

func manyProblems(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":7`)
	}
	b.WriteString(`}}`)
	return b.String()
}

// checkPlanShape asserts the invariants every plan keeps.
func checkPlanShape(t testing.TB, p Plan) {
	t.Helper()
	if len(p.Cases) == 0 || p.Cases[0].Kind != Valid {
		t.Fatalf("first case is not the valid case: %s", ids(p))
	}
	seen := map[string]bool{}
	for _, c := range p.Cases {
		if seen[c.ID] {
			t.Errorf("duplicate id %q", c.ID)
		}
		seen[c.ID] = true
		if !json.Valid(c.Arguments) {
			t.Errorf("%s: arguments are not JSON: %.200s", c.ID, c.Arguments)
		}
		if c.Kind == Structural {
			if !c.Forbidden {
				t.Errorf("%s: structural case not forbidden", c.ID)
			}
			continue
		}
		if len(c.Arguments) == 0 || c.Arguments[0] != '{' {
			t.Errorf("%s: arguments are not an object: %.200s", c.ID, c.Arguments)
		}
	}
}

func TestHugeEnumUsesFirstValue(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, bigEnumSchema(100000))
	p := Generate("t", s, Options{})
	if got := string(p.Cases[0].Arguments); got != `{"pick":"v0"}` {
		t.Errorf("valid arguments %s, want the first enum value", got)
	}
	if p.GeneratorGap != "" {
		t.Errorf("gap: %s", p.GeneratorGap)
	}
	c := caseByID(t, p, "t/out_of_enum/pick")
	if !c.Forbidden {
		t.Errorf("out_of_enum not forbidden: %s", c.Arguments)
	}
}

func TestRemoteRefIsNeverFetched(t *testing.T) {
	t.Parallel()
	// an address that would hang if dialled; the loader must refuse it at once
	s, probs := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"http://10.255.255.1/schema.json"}}}`))
	if s.Compiled() || !hasProblem(probs, "schema_does_not_compile") {
		t.Fatalf("remote ref compiled or not reported: %+v", probs)
	}
	for _, p := range probs {
		if p.Code == "schema_does_not_compile" && !strings.Contains(p.Message, "not fetched") {
			t.Errorf("message does not say the reference was not fetched: %s", p.Message)
		}
	}
}

// With a schema that does not compile, Forbidden is a conservative judgement.
func TestUncompiledForbiddenIsConservative(t *testing.T) {
	t.Parallel()
	s, _ := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"$ref":"https://example.com/x"},"n":{"type":["string","null"]}},"required":["a"],"additionalProperties":false}`))
	if s.Compiled() {
		t.Fatal("schema unexpectedly compiled")
	}
	if err := s.Validate(json.RawMessage(`[]`)); err != nil {
		t.Errorf("Validate on an uncompiled schema = %v, want nil", err)
	}
	p := Generate("t", s, Options{})
	want := map[string]bool{
		"t/missing_required/a":       true,
		"t/wrong_type/a":             true,
		"t/null/a":                   true,
		"t/null/n":                   false,
		"t/out_of_range/a#maxLength": false,
		"t/extra_property":           false,
		"t/structural#array":         true,
	}
	for id, forbidden := range want {
		if c := caseByID(t, p, id); c.Forbidden != forbidden {
			t.Errorf("%s: Forbidden = %v, want %v", id, c.Forbidden, forbidden)
		}
	}
	if p.GeneratorGap != "" {
		t.Errorf("gap reported without a validator: %s", p.GeneratorGap)
	}
}
