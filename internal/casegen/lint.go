package casegen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Bounds of the lint walk.
const (
	maxProblems  = 100
	maxLintNodes = 100000
	hugeEnum     = 1000 // enums longer than this are reported (only the first value is used)
)

var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// lint reports malformed metadata that generation has to work around.
func lint(doc any, res *resolver) []Problem {
	l := &linter{res: res}
	if m, ok := doc.(map[string]any); ok {
		if t, has := m["type"]; has && t != "object" {
			l.add("root_type_not_object", SevError, []string{"type"}, fmt.Sprintf("inputSchema type is %s; MCP requires \"object\"", short(t)))
		}
	}
	l.schema(doc, nil, 0)
	if len(l.problems) >= maxProblems {
		l.problems = append(l.problems, Problem{"problems_truncated", SevInfo, "", fmt.Sprintf("only the first %d schema problems are listed", maxProblems)})
	}
	return l.problems
}

type linter struct {
	res      *resolver
	problems []Problem
	nodes    int
	tooDeep  bool
}

func (l *linter) add(code string, sev report.Severity, path []string, msg string) {
	if len(l.problems) < maxProblems {
		l.problems = append(l.problems, Problem{code, sev, pointer(path), msg})
	}
}

// subschema keywords whose value is one schema, a map of schemas, or a list of schemas.
var (
	oneSchema   = []string{"additionalProperties", "additionalItems", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

func (l *linter) schema(v any, path []string, depth int) {
	if len(l.problems) >= maxProblems || l.nodes >= maxLintNodes {
		return
	}
	l.nodes++
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); !isBool {
			l.add("subschema_not_object", SevError, path, fmt.Sprintf("schema is %s, not an object or a boolean", describeType(v)))
		}
		return
	}
	if depth >= maxDepth {
		if !l.tooDeep {
			l.tooDeep = true
			l.add("schema_too_deep", SevWarning, path, fmt.Sprintf("schema nests deeper than %d levels; generation and checks stop there", maxDepth))
		}
		return
	}
	l.keywords(m, path)
	for _, kw := range oneSchema {
		if sub, ok := m[kw]; ok {
			l.schema(sub, appendPath(path, kw), depth+1)
		}
	}
	switch it := m["items"].(type) {
	case []any:
		l.list(it, appendPath(path, "items"), depth)
	case nil:
	default:
		l.schema(it, appendPath(path, "items"), depth+1)
	}
	for _, kw := range schemaLists {
		if list, ok := m[kw].([]any); ok {
			l.list(list, appendPath(path, kw), depth)
		}
	}
	for _, kw := range schemaMaps {
		sub, ok := m[kw].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range sortedKeys(sub) {
			p := appendPath(path, kw, k)
			if kw == "properties" {
				l.propertySchema(sub[k], p)
			}
			if kw == "patternProperties" {
				l.pattern(k, appendPath(path, kw), "patternProperties key")
			}
			l.schema(sub[k], p, depth+1)
		}
	}
}

func (l *linter) list(list []any, path []string, depth int) {
	for i, e := range list {
		l.schema(e, appendPath(path, strconv.Itoa(i)), depth+1)
	}
}

func (l *linter) propertySchema(v any, path []string) {
	if b, ok := v.(bool); ok {
		name := path[len(path)-1]
		if b {
			l.add("property_schema_boolean", SevInfo, path, fmt.Sprintf("property %q has schema true: any value is allowed, nothing guides generation", name))
		} else {
			l.add("property_schema_boolean", SevWarning, path, fmt.Sprintf("property %q has schema false: no value is ever valid", name))
		}
	}
}

// keywords checks the keywords of one schema object.
func (l *linter) keywords(m map[string]any, path []string) {
	if p, ok := m["properties"]; ok {
		if _, isMap := p.(map[string]any); !isMap {
			l.add("properties_not_object", SevError, appendPath(path, "properties"), fmt.Sprintf("properties is %s, not an object; it is ignored", describeType(p)))
		}
	}
	if r, ok := m["required"]; ok && !isStringList(r) {
		l.add("required_not_string_list", SevError, appendPath(path, "required"), fmt.Sprintf("required is %s, not a list of strings; only its string entries are used", describeType(r)))
	}
	if e, ok := m["enum"]; ok {
		switch list, isList := e.([]any); {
		case !isList:
			l.add("enum_not_array", SevError, appendPath(path, "enum"), fmt.Sprintf("enum is %s, not an array; it is ignored", describeType(e)))
		case len(list) == 0:
			l.add("enum_empty", SevWarning, appendPath(path, "enum"), "enum is empty: no value is ever valid")
		case len(list) > hugeEnum:
			l.add("huge_enum", SevWarning, appendPath(path, "enum"), fmt.Sprintf("enum has %d values; only the first one is used for generation", len(list)))
		}
	}
	l.types(m["type"], appendPath(path, "type"))
	if p, ok := m["pattern"].(string); ok {
		l.pattern(p, appendPath(path, "pattern"), "pattern")
	}
	if ref, ok := m["$ref"].(string); ok {
		l.ref(ref, appendPath(path, "$ref"))
	}
}

func (l *linter) types(t any, path []string) {
	var names []any
	switch v := t.(type) {
	case nil:
		return
	case string:
		names = []any{v}
	case []any:
		names = v
	default:
		l.add("unknown_type", SevError, path, fmt.Sprintf("type is %s, not a type name or a list of them", describeType(t)))
		return
	}
	for _, n := range names {
		if s, ok := n.(string); !ok || !jsonTypes[s] {
			l.add("unknown_type", SevError, path, fmt.Sprintf("type %s is not a JSON Schema type", short(n)))
		}
	}
}

func (l *linter) pattern(p string, path []string, what string) {
	if _, err := regexp.Compile(p); err != nil {
		l.add("pattern_unsupported", SevWarning, path, fmt.Sprintf("%s %q is not supported by the validator's regexp engine; it is not checked: %v", what, p, err))
	}
}

// ref reports references that are remote, unresolvable or cyclic.
func (l *linter) ref(ref string, path []string) {
	if l.res.isRemote(ref) {
		l.add("remote_ref", SevError, path, fmt.Sprintf("$ref %q points outside the schema; remote references are never fetched", ref))
		return
	}
	target, ok := l.res.lookup(ref)
	if !ok {
		l.add("unresolvable_ref", SevError, path, fmt.Sprintf("$ref %q does not resolve inside the schema", ref))
		return
	}
	// the object holding $ref sits at path minus "$ref"
	holder := pointer(path[:len(path)-1])
	if inPlaceAncestor(target.ptr, holder) {
		l.add("ref_cycle", SevError, path, fmt.Sprintf("$ref %q refers back to an enclosing schema without descending into a value: the reference never ends", ref))
		return
	}
	seen := map[string]bool{holder: true}
	cur := target
	for i := 0; i < maxRefChain; i++ {
		if seen[cur.ptr] {
			l.add("ref_cycle", SevError, path, fmt.Sprintf("$ref %q starts a cycle of references that never reaches a schema", ref))
			return
		}
		seen[cur.ptr] = true
		m, ok := cur.v.(map[string]any)
		if !ok {
			return
		}
		next, ok := m["$ref"].(string)
		if !ok {
			return
		}
		if cur, ok = l.res.lookup(next); !ok {
			return
		}
	}
}

// inPlaceAncestor reports whether target encloses holder through keywords
// that apply to the same value (allOf, anyOf, oneOf, not, if/then/else), so
// that following the reference never descends into the instance.
func inPlaceAncestor(target, holder string) bool {
	if target != holder && !strings.HasPrefix(holder, target+"/") {
		return false
	}
	rest := strings.Split(strings.TrimPrefix(holder, target), "/")
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case "allOf", "anyOf", "oneOf":
			i++ // skip the index
		case "not", "if", "then", "else":
		default:
			return false
		}
	}
	return true
}

func isStringList(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}
