package lint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
)

// in returns one clean tool with the given inputSchema ("" for absent).
func in(schema string) []Tool {
	return []Tool{tool(func(t *Tool) {
		t.InputSchema = nil
		if schema != "" {
			t.InputSchema = json.RawMessage(schema)
		}
	})}
}

// out returns one clean tool with the given outputSchema ("" for absent).
func out(schema string) []Tool {
	return []Tool{tool(func(t *Tool) {
		if schema != "" {
			t.OutputSchema = json.RawMessage(schema)
		}
	})}
}

func TestMissingInputSchema(t *testing.T) {
	runRule(t, "missing_input_schema", []ruleCase{
		{name: "absent", tools: in(""), want: 1, pointer: "/inputSchema"},
		{name: "null", tools: in("null"), want: 1},
		{name: "not an object is not missing", tools: in("[]"), want: 0},
		{name: "present", want: 0},
	})
}

func TestInputSchemaNotObject(t *testing.T) {
	runRule(t, "input_schema_not_object", []ruleCase{
		{name: "array", tools: in(`[{"type":"object"}]`), want: 1, pointer: "/inputSchema", contains: "JSON array"},
		{name: "string", tools: in(`"object"`), want: 1, contains: "JSON string"},
		{name: "true", tools: in(`true`), want: 1, contains: "JSON boolean"},
		{name: "not JSON", tools: in(`{"type":`), want: 1, contains: "not valid JSON"},
		{name: "absent is missing", tools: in(""), want: 0},
		{name: "object", want: 0},
	})
}

func TestInputRootNotObject(t *testing.T) {
	runRule(t, "input_root_not_object", []ruleCase{
		{name: "no type", tools: in(`{"properties":{}}`), want: 1, pointer: "/inputSchema", contains: `no root "type"`},
		{name: "string", tools: in(`{"type":"string"}`), want: 1, pointer: "/inputSchema/type", contains: `"string", not "object"`},
		{name: "type list", tools: in(`{"type":["object","null"]}`), want: 1},
		{name: "object", want: 0},
		{name: "not an object schema", tools: in(`[]`), want: 0},
	})
}

func TestInputSchemaDoesNotCompile(t *testing.T) {
	runRule(t, "input_schema_does_not_compile", []ruleCase{
		{name: "properties array", tools: in(`{"type":"object","properties":[]}`), want: 1, pointer: "/inputSchema/properties", contains: "want object"},
		{name: "bad type name", tools: in(`{"type":"object","properties":{"a/b":{"type":"strin"}}}`), want: 1, pointer: "/inputSchema/properties/a~1b/type"},
		{name: "bad regex", tools: in(`{"type":"object","properties":{"a":{"type":"string","pattern":"(("}}}`), want: 1, pointer: "/inputSchema/properties/a/pattern", contains: "regex"},
		{name: "missing local ref", tools: in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}`), want: 1, contains: "#/$defs/x"},
		{name: "relative ref", tools: in(`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`), want: 1, contains: `"other.json" cannot be resolved`},
		{name: "draft-07", tools: in(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/x"}},"required":[]}`), want: 0},
		{name: "remote ref is not a compile error", tools: in(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`), want: 0},
		{name: "valid", want: 0},
	})
}

func TestRemoteRef(t *testing.T) {
	both := tool(func(t *Tool) {
		t.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json#/x"}}}`)
		t.OutputSchema = json.RawMessage(`{"$schema":"https://example.com/meta","type":"object"}`)
	})
	runRule(t, "remote_ref", []ruleCase{
		{name: "https ref", tools: in(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`), want: 1, pointer: "/inputSchema", contains: `"https://example.com/a.json"`},
		{name: "file ref is never read", tools: in(`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`), want: 1, contains: "file:///etc/passwd"},
		{name: "input and output", tools: []Tool{both}, want: 2},
		{name: "relative ref under a remote $id", tools: in(`{"$id":"https://example.com/s/root.json","type":"object","properties":{"a":{"$ref":"b.json"}}}`), want: 1, contains: "https://example.com/s/b.json"},
		{name: "local ref", tools: in(`{"type":"object","$defs":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`), want: 0},
		{name: "known metaschema", tools: in(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`), want: 0},
	})
}

func TestSchemaTooComplex(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 70) + `{}` + strings.Repeat(`}}`, 70)
	wide := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
		}
		return b.String() + `}}`
	}
	long := `{"type":"object","properties":{"e":{"type":"string","enum":[` + strings.TrimSuffix(strings.Repeat(`"abcdefgh",`, 20000), ",") + `]}}}`
	runRule(t, "schema_too_complex", []ruleCase{
		{name: "deep", tools: in(deep), want: 1, pointer: "/inputSchema", contains: "141 levels deep"},
		{name: "wide", tools: in(wide(casegen.MaxCompileObjects)), want: 1, contains: "more than 10000 schema objects"},
		{name: "deep output", tools: out(deep), want: 1, pointer: "/outputSchema"},
		{name: "just deep enough", tools: in(strings.Repeat(`{"type":"object","properties":{"a":`, 60) + `{}` + strings.Repeat(`}}`, 60)), want: 0},
		{name: "just wide enough", tools: in(wide(casegen.MaxCompileObjects - 2)), want: 0},
		{name: "long but few objects", tools: in(long), want: 0},
		{name: "ordinary", want: 0},
	})
}

func TestPropertyWithoutType(t *testing.T) {
	runRule(t, "property_without_type", []ruleCase{
		{name: "no type", tools: in(`{"type":"object","properties":{"limit":{"description":"max rows"}}}`), want: 1, pointer: "/inputSchema/properties/limit", contains: `"limit"`},
		{name: "true", tools: in(`{"type":"object","properties":{"q":true}}`), want: 1, contains: "accepts any value"},
		{name: "escaped pointer", tools: in(`{"type":"object","properties":{"a/b~c":{}}}`), want: 1, pointer: "/inputSchema/properties/a~1b~0c"},
		{name: "two of three", tools: in(`{"type":"object","properties":{"a":{},"b":{"type":"string"},"c":{}}}`), want: 2},
		{name: "ref", tools: in(`{"type":"object","$defs":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`), want: 0},
		{name: "enum", tools: in(`{"type":"object","properties":{"a":{"enum":["x","y"]}}}`), want: 0},
		{name: "anyOf", tools: in(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`), want: 0},
		{name: "false", tools: in(`{"type":"object","properties":{"a":false}}`), want: 0},
		{name: "properties array", tools: in(`{"type":"object","properties":[{}]}`), want: 0},
		{name: "nested only top level", tools: in(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{}}}}}`), want: 0},
		{name: "typed", want: 0},
	})
}

func TestPropertyWithoutDescription(t *testing.T) {
	runRule(t, "property_without_description", []ruleCase{
		{name: "none", tools: in(`{"type":"object","properties":{"q":{"type":"string"}}}`), want: 1, pointer: "/inputSchema/properties/q"},
		{name: "blank", tools: in(`{"type":"object","properties":{"q":{"type":"string","description":"  "}}}`), want: 1},
		{name: "not a string", tools: in(`{"type":"object","properties":{"q":{"type":"string","description":5}}}`), want: 1},
		{name: "true", tools: in(`{"type":"object","properties":{"q":true}}`), want: 1},
		{name: "described", want: 0},
		{name: "no properties", tools: in(`{"type":"object"}`), want: 0},
	})
}

func TestNoRequired(t *testing.T) {
	runRule(t, "no_required", []ruleCase{
		{name: "properties without required", tools: in(`{"type":"object","properties":{"q":{"type":"string"}}}`), want: 1, pointer: "/inputSchema"},
		{name: "empty required", tools: in(`{"type":"object","properties":{"q":{"type":"string"}},"required":[]}`), want: 0},
		{name: "empty properties", tools: in(`{"type":"object","properties":{}}`), want: 0},
		{name: "no properties", tools: in(`{"type":"object"}`), want: 0},
		{name: "required", want: 0},
	})
}

func TestOutputSchemaDoesNotCompile(t *testing.T) {
	runRule(t, "output_schema_does_not_compile", []ruleCase{
		{name: "bad type", tools: out(`{"type":"object","properties":{"n":{"type":"int"}}}`), want: 1, pointer: "/outputSchema/properties/n/type", contains: "outputSchema"},
		{name: "required not list", tools: out(`{"type":"object","required":"n"}`), want: 1, pointer: "/outputSchema/required"},
		{name: "valid", tools: out(`{"type":"object","properties":{"n":{"type":"integer"}}}`), want: 0},
		{name: "absent", want: 0},
		{name: "not an object is a root problem", tools: out(`[]`), want: 0},
	})
}

func TestOutputRootNotObject(t *testing.T) {
	runRule(t, "output_root_not_object", []ruleCase{
		{name: "array type", tools: out(`{"type":"array","items":{"type":"string"}}`), want: 1, pointer: "/outputSchema/type", contains: `"array", not "object"`},
		{name: "no type", tools: out(`{"properties":{}}`), want: 1, pointer: "/outputSchema"},
		{name: "array value", tools: out(`[]`), want: 1, contains: "JSON array"},
		{name: "not JSON", tools: out(`{`), want: 1, contains: "not valid JSON"},
		{name: "object", tools: out(`{"type":"object"}`), want: 0},
		{name: "absent", want: 0},
		{name: "null", tools: out(`null`), want: 0},
	})
}
