package lint

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
)

const inputSchemaHint = `set "inputSchema": {"type": "object", "properties": {...}}; MCP requires an object schema even for a tool without arguments`

func checkMissingInputSchema(t *toolInput) []hit {
	if t.input.Present {
		return nil
	}
	return []hit{{
		Pointer: "/inputSchema",
		Message: t.ref() + " has no inputSchema",
		Hint:    inputSchemaHint,
	}}
}

func checkInputSchemaNotObject(t *toolInput) []hit {
	s := t.input
	if !s.Present || s.Kind == "object" {
		return nil
	}
	msg := fmt.Sprintf("the inputSchema of %s is a JSON %s, not an object", t.ref(), s.Kind)
	if s.Kind == "invalid" {
		msg = fmt.Sprintf("the inputSchema of %s is not valid JSON: %s", t.ref(), s.Invalid)
	}
	return []hit{{Pointer: "/inputSchema", Message: msg, Hint: inputSchemaHint}}
}

func checkInputRootNotObject(t *toolInput) []hit {
	s := t.input
	if s.Kind != "object" {
		return nil
	}
	typ, raw := s.rootType()
	if typ == "object" {
		return nil
	}
	msg := fmt.Sprintf(`the inputSchema of %s has no root "type"`, t.ref())
	if raw != nil {
		msg = fmt.Sprintf(`the inputSchema of %s has root "type" %s, not "object"`, t.ref(), short(string(raw)))
	}
	ptr := "/inputSchema"
	if raw != nil {
		ptr += "/type"
	}
	return []hit{{
		Pointer: ptr,
		Message: msg,
		Hint:    `set "type": "object" at the root of inputSchema; tool arguments are always a JSON object`,
	}}
}

func checkInputCompiles(t *toolInput) []hit {
	return compileHits(t, t.input, "/inputSchema", "inputSchema")
}

func checkOutputCompiles(t *toolInput) []hit {
	return compileHits(t, t.output, "/outputSchema", "outputSchema")
}

func compileHits(t *toolInput, s *schemaInfo, at, what string) []hit {
	if s.Kind != "object" || s.CompileErr == "" {
		return nil
	}
	if s.Legacy.SkippedTuple {
		return []hit{tupleCompileHit(t, s, at+s.ErrPointer, what)}
	}
	return []hit{{
		Pointer: at + s.ErrPointer,
		Message: fmt.Sprintf("the %s of %s does not compile as JSON Schema: %s", what, t.ref(), s.CompileErr),
		Hint:    `fix the schema so it is valid against its metaschema (JSON Schema 2020-12 unless "$schema" names another draft); check it with a JSON Schema validator`,
	}}
}

func checkRemoteRef(t *toolInput) []hit {
	var hits []hit
	for _, s := range []struct {
		info     *schemaInfo
		at, what string
	}{{t.input, "/inputSchema", "inputSchema"}, {t.output, "/outputSchema", "outputSchema"}} {
		if s.info.RemoteURL == "" {
			continue
		}
		hits = append(hits, hit{
			Pointer: s.at,
			Message: fmt.Sprintf("the %s of %s refers to %s outside the schema; mcp-fuzz does not fetch it, so the rest of the schema was not checked", s.what, t.ref(), quote(s.info.RemoteURL)),
			Hint:    `inline the referenced schema under "$defs" and point "$ref" at "#/$defs/..."; clients may not fetch remote schemas either`,
		})
	}
	return hits
}

func checkTooComplex(t *toolInput) []hit {
	var hits []hit
	for _, s := range []struct {
		info     *schemaInfo
		at, what string
	}{{t.input, "/inputSchema", "inputSchema"}, {t.output, "/outputSchema", "outputSchema"}} {
		var why string
		switch {
		case s.info.Kind != "object":
			continue
		case s.info.Truncated:
			why = fmt.Sprintf("is nested %d levels deep (mcp-fuzz compiles up to %d)", s.info.Depth, casegen.MaxJSONDepth)
		case s.info.TooLarge:
			why = fmt.Sprintf("has more than %d schema objects (the most mcp-fuzz compiles)", casegen.MaxCompileObjects)
		default:
			continue
		}
		hits = append(hits, hit{
			Pointer: s.at,
			Message: fmt.Sprintf("the %s of %s %s, so it was not compiled or checked as JSON Schema", s.what, t.ref(), why),
			Hint:    `flatten the schema: define repeated shapes once under "$defs" and refer to them with "$ref"; models handle huge or deeply nested schemas poorly too`,
		})
	}
	return hits
}

// implicitType lists keywords that constrain a value's type without "type".
var implicitType = []string{"$ref", "$dynamicRef", "enum", "const", "anyOf", "oneOf", "allOf"}

func checkPropertyType(t *toolInput) []hit {
	return eachProperty(t, "without a type", func(p property, ptr string) (hit, bool) {
		if p.Bool != nil {
			if !*p.Bool {
				return hit{}, false
			}
			return hit{
				Pointer: ptr,
				Message: fmt.Sprintf("property %s of %s is the schema true, which accepts any value", quote(p.Name), t.ref()),
				Hint:    fmt.Sprintf(`replace true by a schema with a "type" for property %s`, quote(p.Name)),
			}, true
		}
		if p.Obj == nil {
			return hit{}, false // not a schema; the compile rule reports it
		}
		if _, ok := p.Obj["type"]; ok {
			return hit{}, false
		}
		for _, k := range implicitType {
			if _, ok := p.Obj[k]; ok {
				return hit{}, false
			}
		}
		return hit{
			Pointer: ptr,
			Message: fmt.Sprintf(`property %s of %s has no "type"`, quote(p.Name), t.ref()),
			Hint:    fmt.Sprintf(`add "type" (e.g. "string", "integer", "boolean", "array" or "object") to property %s`, quote(p.Name)),
		}, true
	})
}

func checkPropertyDescription(t *toolInput) []hit {
	return eachProperty(t, "without a description", func(p property, ptr string) (hit, bool) {
		if p.Bool != nil && !*p.Bool {
			return hit{}, false
		}
		if p.Bool == nil {
			if p.Obj == nil {
				return hit{}, false
			}
			if d, ok := stringMember(p.Obj, "description"); ok && strings.TrimSpace(d) != "" {
				return hit{}, false
			}
		}
		return hit{
			Pointer: ptr,
			Message: fmt.Sprintf("property %s of %s has no description", quote(p.Name), t.ref()),
			Hint:    fmt.Sprintf(`add "description" to property %s saying what the value means, its unit or format, and an example`, quote(p.Name)),
		}, true
	})
}

// eachProperty applies f to the top-level input properties and caps the
// findings at maxPerRule, adding one that counts the rest.
func eachProperty(t *toolInput, what string, f func(p property, ptr string) (hit, bool)) []hit {
	var hits []hit
	more := 0
	for _, p := range t.input.Props {
		h, ok := f(p, "/inputSchema/properties/"+escapeToken(p.Name))
		if !ok {
			continue
		}
		if len(hits) == maxPerRule {
			more++
			continue
		}
		hits = append(hits, h)
	}
	if more > 0 {
		hits = append(hits, hit{
			Pointer: "/inputSchema/properties",
			Message: fmt.Sprintf("%d more properties of %s %s are not listed", more, t.ref(), what),
			Hint:    hits[0].Hint,
		})
	}
	return hits
}

func checkNoRequired(t *toolInput) []hit {
	s := t.input
	if len(s.Props) == 0 {
		return nil
	}
	if _, ok := s.Obj["required"]; ok {
		return nil
	}
	return []hit{{
		Pointer: "/inputSchema",
		Message: fmt.Sprintf(`the inputSchema of %s has properties but no "required" list`, t.ref()),
		Hint:    `add "required": [...] naming the properties the tool cannot work without, or "required": [] when all are optional`,
	}}
}

func checkOutputRootNotObject(t *toolInput) []hit {
	s := t.output
	if !s.Present {
		return nil
	}
	const hint = `set "type": "object" at the root of outputSchema; structuredContent is always a JSON object`
	if s.Kind != "object" {
		msg := fmt.Sprintf("the outputSchema of %s is a JSON %s, not an object schema", t.ref(), s.Kind)
		if s.Kind == "invalid" {
			msg = fmt.Sprintf("the outputSchema of %s is not valid JSON: %s", t.ref(), s.Invalid)
		}
		return []hit{{Pointer: "/outputSchema", Message: msg, Hint: hint}}
	}
	typ, raw := s.rootType()
	if typ == "object" {
		return nil
	}
	msg := fmt.Sprintf(`the outputSchema of %s has no root "type"`, t.ref())
	if raw != nil {
		msg = fmt.Sprintf(`the outputSchema of %s has root "type" %s, not "object"`, t.ref(), short(string(raw)))
	}
	ptr := "/outputSchema"
	if raw != nil {
		ptr += "/type"
	}
	return []hit{{Pointer: ptr, Message: msg, Hint: hint}}
}
