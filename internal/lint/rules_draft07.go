package lint

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/jsonclip"
)

// A tool schema without "$schema" is JSON Schema 2020-12 (the MCP revisions
// since 2025-11-25 say so), yet many servers still write draft-07 (or
// 2019-09) keywords that 2020-12 ignores or reads otherwise. The
// draft07_keyword rule finds them anywhere in the schema tree.

// maxDraft07Hits is how many draft07_keyword findings one tool gets; one
// more counts the rest.
const maxDraft07Hits = 5

// dialect is the JSON Schema draft a schema (or an embedded resource)
// declares in "$schema", as far as the legacy keywords are concerned.
type dialect int

const (
	dialect2020   dialect = iota // absent, 2020-12, or unknown (validated as 2020-12)
	dialect2019                  // 2019-09: only "dependencies" is gone
	dialectLegacy                // draft-04, -06 or -07: every keyword here is valid
)

// dialectOf reads the "$schema" of a schema object the way the validator
// does (http or https, an empty fragment allowed).
func dialectOf(obj map[string]any) dialect {
	uri, _ := obj["$schema"].(string)
	uri = strings.TrimSuffix(uri, "#")
	if u, ok := strings.CutPrefix(uri, "http://"); ok {
		uri = u
	} else {
		uri = strings.TrimPrefix(uri, "https://")
	}
	switch uri {
	case "json-schema.org/draft-07/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-04/schema":
		return dialectLegacy
	case "json-schema.org/draft/2019-09/schema":
		return dialect2019
	}
	return dialect2020
}

// legacyUse is one draft-07 or 2019-09 keyword in a 2020-12 schema.
type legacyUse struct {
	Keyword string
	// Pointer locates the keyword's value inside the schema ("" is the root).
	Pointer string
	// Tuple is set for "items" given as an array.
	Tuple bool
	// Value is the keyword's value (for "dependencies", to tell which of
	// dependentRequired and dependentSchemas it becomes).
	Value any
}

// legacyScan is what [scanLegacy] found in one schema.
type legacyScan struct {
	// Uses are the first maxDraft07Hits uses in document order.
	Uses []legacyUse
	// Total counts every use, listed or not.
	Total int
	// SkippedTuple is set when the tuple "items" at the skip pointer was
	// left out: it is why the schema does not compile, and the compile rule
	// reports it.
	SkippedTuple bool
	// Declared is set when the root has "$schema"; Root is its dialect.
	Declared bool
	Root     dialect
}

// why says why the schema is read as 2020-12 (or 2019-09).
func (sc legacyScan) why() string {
	switch {
	case !sc.Declared:
		return `a schema without "$schema" is JSON Schema 2020-12`
	case sc.Root == dialect2019:
		return `its "$schema" is draft 2019-09, which dropped it already`
	}
	return `its "$schema" is read as draft 2020-12`
}

// scanLegacy finds the legacy keywords in raw (a JSON object), leaving out a
// tuple "items" at skip. The walk visits subschemas only (never enum, const,
// default or examples data, nor property names) and stops where casegen
// stops compiling: deeper than [casegen.MaxJSONDepth] JSON levels, the
// document is cut before it is decoded, so a schema thousands of levels deep
// costs one linear pass.
func scanLegacy(raw json.RawMessage, skip string) legacyScan {
	var sc legacyScan
	clipped, _ := jsonclip.ClipWith(raw, casegen.MaxJSONDepth, []byte("true"))
	var doc map[string]any
	if json.Unmarshal(clipped, &doc) != nil {
		return sc
	}
	_, sc.Declared = doc["$schema"]
	sc.Root = dialectOf(doc)
	w := legacyWalker{scan: &sc, skip: skip}
	w.schema(doc, "", sc.Root, 0)
	return sc
}

type legacyWalker struct {
	scan *legacyScan
	skip string
}

func (w legacyWalker) add(u legacyUse) {
	if u.Tuple && u.Pointer == w.skip {
		w.scan.SkippedTuple = true
		return
	}
	w.scan.Total++
	if len(w.scan.Uses) < maxDraft07Hits {
		w.scan.Uses = append(w.scan.Uses, u)
	}
}

// schema walks one subschema at ptr; depth counts JSON levels.
func (w legacyWalker) schema(v any, ptr string, d dialect, depth int) {
	obj, ok := v.(map[string]any)
	if !ok || depth > casegen.MaxJSONDepth {
		return
	}
	if _, ok := obj["$id"]; ok {
		if _, ok := obj["$schema"]; ok {
			d = dialectOf(obj) // an embedded resource with its own dialect
		}
	}
	// Keywords are checked in a fixed order so findings are deterministic.
	for _, k := range []string{"items", "additionalItems", "dependencies", "$recursiveRef", "$recursiveAnchor"} {
		val, ok := obj[k]
		if !ok {
			continue
		}
		at := ptr + "/" + escapeToken(k)
		switch {
		case d == dialectLegacy:
		case k == "items":
			if _, tuple := val.([]any); tuple && d == dialect2020 {
				w.add(legacyUse{Keyword: k, Pointer: at, Tuple: true})
			}
		case k == "dependencies" || d == dialect2020:
			w.add(legacyUse{Keyword: k, Pointer: at, Value: val})
		}
	}
	for _, k := range []string{"items", "prefixItems", "allOf", "anyOf", "oneOf"} {
		if arr, ok := obj[k].([]any); ok {
			for i, sub := range arr {
				w.schema(sub, fmt.Sprintf("%s/%s/%d", ptr, k, i), d, depth+2)
			}
		}
	}
	for _, k := range []string{"items", "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties"} {
		if sub, ok := obj[k].(map[string]any); ok {
			w.schema(sub, ptr+"/"+escapeToken(k), d, depth+1)
		}
	}
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"} {
		m, ok := obj[k].(map[string]any)
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			w.schema(m[name], ptr+"/"+escapeToken(k)+"/"+escapeToken(name), d, depth+2)
		}
	}
}

// legacyWording is, per keyword, what 2020-12 does with it and the fix.
var legacyWording = map[string]struct{ does, fix string }{
	"items": {
		`is an array, the draft-07 tuple form: in 2020-12 "items" is one schema for every item and a tuple is spelled "prefixItems", so the schema does not compile`,
		`rename "items": [...] to "prefixItems": [...] (and "additionalItems" to "items")`,
	},
	"additionalItems": {
		`is not a 2020-12 keyword: 2020-12 ignores it, so the items after the tuple are not constrained`,
		`spell the tuple "prefixItems": [...] and the items after it "items" instead of "additionalItems"`,
	},
	"dependencies": {
		`is not a 2020-12 keyword (it was split into "dependentRequired" and "dependentSchemas"): 2020-12 validators ignore it`,
		`use "dependentRequired": {"a": ["b"]} for the property lists and "dependentSchemas": {"a": {...}} for the schemas`,
	},
	"$recursiveRef": {
		`is draft 2019-09: 2020-12 replaced it by "$dynamicRef" and ignores it`,
		`use "$dynamicRef" with "$dynamicAnchor"`,
	},
	"$recursiveAnchor": {
		`is draft 2019-09: 2020-12 replaced it by "$dynamicAnchor" and ignores it`,
		`use "$dynamicAnchor" with "$dynamicRef"`,
	},
}

// declareHint is the other fix: keep the keyword and say which draft it is.
func declareHint(keyword string) string {
	if strings.HasPrefix(keyword, "$recursive") {
		return `, or declare "$schema": "https://json-schema.org/draft/2019-09/schema" explicitly`
	}
	return `, or declare "$schema": "http://json-schema.org/draft-07/schema#" explicitly`
}

func checkDraft07Keyword(t *toolInput) []hit {
	var hits []hit
	total := 0
	for _, s := range []struct {
		info     *schemaInfo
		at, what string
	}{{t.input, "/inputSchema", "inputSchema"}, {t.output, "/outputSchema", "outputSchema"}} {
		if s.info.Kind != "object" {
			continue
		}
		total += s.info.Legacy.Total
		for _, u := range s.info.Legacy.Uses {
			if len(hits) == maxDraft07Hits {
				break
			}
			w := legacyWording[u.Keyword]
			hits = append(hits, hit{
				Pointer: s.at + u.Pointer,
				Message: fmt.Sprintf(`"%s" in the %s of %s %s; %s`, u.Keyword, s.what, t.ref(), w.does, s.info.Legacy.why()),
				Hint:    legacyFix(u) + declareHint(u.Keyword),
			})
		}
	}
	if more := total - len(hits); more > 0 {
		hits = append(hits, hit{
			Pointer: hits[0].Pointer,
			Message: fmt.Sprintf("and %d more draft-07 or 2019-09 keywords in the schemas of %s are not listed", more, t.ref()),
			Hint:    `fix the keywords listed first, or declare "$schema": "http://json-schema.org/draft-07/schema#" explicitly`,
		})
	}
	return hits
}

// legacyFix is the 2020-12 spelling of u; for "dependencies" it says which
// replacement its members need.
func legacyFix(u legacyUse) string {
	if u.Keyword == "dependencies" {
		if m, ok := u.Value.(map[string]any); ok {
			lists, schemas := false, false
			for _, v := range m {
				if _, ok := v.([]any); ok {
					lists = true
				} else {
					schemas = true
				}
			}
			switch {
			case lists && !schemas:
				return `rename "dependencies" to "dependentRequired" (the members are property lists)`
			case schemas && !lists:
				return `rename "dependencies" to "dependentSchemas" (the members are schemas)`
			}
		}
	}
	return legacyWording[u.Keyword].fix
}

// tupleCompileHit rewords the compile error of a 2020-12 schema whose
// "items" is an array, which is what draft-07 meant by a tuple.
func tupleCompileHit(t *toolInput, s *schemaInfo, at, what string) hit {
	return hit{
		Pointer: at,
		Message: fmt.Sprintf(`the %s of %s does not compile as JSON Schema 2020-12 (%s): "items" %s`, what, t.ref(), s.Legacy.why(), strings.TrimSuffix(legacyWording["items"].does, ", so the schema does not compile")),
		Hint:    legacyWording["items"].fix + declareHint("items"),
	}
}
