package lint

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// reportedByRules maps the schema problems of case generation that a rule
// of [Check] reports already to that rule's code.
var reportedByRules = map[string]string{
	"schema_not_object":       "input_schema_not_object", // or missing_input_schema
	"schema_invalid_json":     "input_schema_not_object",
	"root_type_not_object":    "input_root_not_object",
	"schema_does_not_compile": "input_schema_does_not_compile", // or remote_ref
	"remote_ref":              "remote_ref",
}

// problemHints is the fix of each other schema problem of case generation.
var problemHints = map[string]string{
	"enum_empty":               "give the enum at least one value, or remove the property",
	"enum_not_array":           "enum must be an array of the allowed values",
	"huge_enum":                "replace a huge enum by a pattern or a lookup tool",
	"internal_error":           "mcp-fuzz could not analyse this schema: please report it with the schema attached",
	"pattern_unsupported":      "use the ECMA-262 subset of regular expressions that JSON Schema validators share",
	"problems_truncated":       "fix the problems listed first; the rest are not shown",
	"properties_not_object":    "properties must map names to schemas",
	"property_schema_boolean":  "describe the property with a schema object (type, description) instead of true or false",
	"ref_cycle":                "break the $ref cycle or bound it with a non-recursive branch",
	"required_not_string_list": "required must be an array of property names",
	"schema_too_deep":          "flatten the schema; deep nesting is unusable for models too",
	"schema_too_large":         "split the tool or move large enums and definitions behind a lookup tool",
	"schema_truncated":         "reduce the schema's size or nesting; only part of it was analysed",
	"subschema_not_object":     "every subschema must be an object or a boolean",
	"unknown_metaschema":       "declare a known draft in $schema (https://json-schema.org/draft/2020-12/schema) or leave it out",
	"unknown_type":             "use the JSON Schema types: object, array, string, number, integer, boolean, null",
	"unresolvable_ref":         "use local $ref targets under $defs",
}

// SchemaProblems turns the problems [casegen.Compile] found in the
// inputSchema of tool (compiled as input) into findings, each with its fix,
// in the order casegen found them. It leaves out the problems the rules of
// [Check] report.
func SchemaProblems(tool string, input *casegen.Schema) []report.Lint {
	var out []report.Lint
	for _, p := range input.Problems() {
		if reportedByRules[p.Code] != "" {
			continue
		}
		out = append(out, report.Lint{
			Code:     p.Code,
			Severity: p.Severity,
			Tool:     tool,
			Pointer:  "/inputSchema" + p.Pointer,
			Message:  p.Message,
			Hint:     problemHints[p.Code],
		})
	}
	return out
}
