package casegen

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Values handled here are what jsonschema.UnmarshalJSON produces:
// map[string]any, []any, string, json.Number, bool and nil.

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = deepCopy(e)
		}
		return s
	default:
		return v
	}
}

// getAt returns the value at path inside root.
func getAt(root any, path []string) (any, bool) {
	cur := root
	for _, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// setAt stores v at path inside root (which it modifies) and returns the root.
// An empty path replaces the root.
func setAt(root any, path []string, v any) any {
	if len(path) == 0 {
		return v
	}
	parent, ok := getAt(root, path[:len(path)-1])
	if !ok {
		return root
	}
	last := path[len(path)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = v
	case []any:
		if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(p) {
			p[i] = v
		}
	}
	return root
}

// deleteAt removes the object member at path inside root (which it modifies).
func deleteAt(root any, path []string) any {
	if len(path) == 0 {
		return root
	}
	parent, ok := getAt(root, path[:len(path)-1])
	if !ok {
		return root
	}
	if p, ok := parent.(map[string]any); ok {
		delete(p, path[len(path)-1])
	}
	return root
}

// appendPath returns a new path: path followed by toks (path is not modified).
func appendPath(path []string, toks ...string) []string {
	out := make([]string, 0, len(path)+len(toks))
	return append(append(out, path...), toks...)
}

var ptrEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// PointerToken escapes a key as one JSON Pointer reference token ("~" as
// "~0", "/" as "~1").
func PointerToken(key string) string { return ptrEscaper.Replace(key) }

var ptrUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// pointer renders path as a JSON pointer ("" for the root).
func pointer(path []string) string {
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		b.WriteString(ptrEscaper.Replace(tok))
	}
	return b.String()
}

// encode renders v as compact JSON without HTML escaping; map keys are sorted.
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// normalize converts an arbitrary Go value (e.g. from YAML) into the decoded
// JSON form used here, with json.Number numbers.
func normalize(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// jsonType names the JSON type of v: "integer" for integral numbers.
func jsonType(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isIntegral(t) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "unknown"
}

func isIntegral(n json.Number) bool {
	r, ok := parseRat(string(n))
	return ok && r.IsInt()
}

// typeAllowed reports whether v's JSON type is in types (nil types allow all).
func typeAllowed(types []string, v any) bool {
	if types == nil {
		return true
	}
	t := jsonType(v)
	for _, want := range types {
		if want == t || (want == "number" && t == "integer") {
			return true
		}
	}
	return false
}

func equalJSON(a, b any) bool {
	return bytes.Equal(encode(a), encode(b))
}
