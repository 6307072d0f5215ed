package lifecycle

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

// idValue is id as a value of the argument a: in a list for a list
// argument, a number for a numeric one when it reads as one, else a
// string.
func idValue(id any, a idArg) any {
	var v any
	switch n := id.(type) {
	case json.Number:
		v = n
		if !a.number {
			v = n.String()
		}
	case string:
		v = n
		if a.number {
			if _, err := json.Number(n).Float64(); err == nil {
				v = json.Number(n)
			}
		}
	default:
		v = fmt.Sprint(id)
	}
	if a.array {
		return []any{v}
	}
	return v
}

// idText is id as a detail shows it: "id \"note-1\"".
func idText(id any) string {
	return fmt.Sprintf("id %q", textcut.Excerpt(fmt.Sprint(id), 64))
}

// maxIDLen bounds the id a create tool's answer gives: a longer one skips
// the check.
const maxIDLen = 512

// mentions reports whether the answer text names id as a whole: not
// inside a longer name or number (the id "a" is not in "entities", nor
// "note-1" in "note-12").
func mentions(text string, id any) bool {
	s := fmt.Sprint(id)
	if s == "" {
		return false
	}
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], s)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(s):])
		if !idRune(before) && !idRune(after) {
			return true
		}
		from = i + 1
	}
	return false
}

// idRune reports whether r can be part of an id: a letter, a digit, _ or -.
func idRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// freshNames is args with each name-like string (name, title, NOUN_name,
// NOUN_title, at any depth: create_entities' entities[].name) made new for
// this create, so that a server that keeps names unique makes a resource
// (the audit's valid call may have made one of that name already). It is
// nil when args have no such string or the new ones break the schema.
// made counts the creates so far, this one included: the new names end
// in -lcMADE.
func freshNames(g *Group, args map[string]any, made int) map[string]any {
	n := normKey(g.noun)
	suffix := fmt.Sprintf("-lc%d", made)
	changed := false
	var walk func(v any, depth int) any
	walk = func(v any, depth int) any {
		if depth > 8 {
			return v
		}
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				s, isStr := e.(string)
				switch key := normKey(k); {
				case isStr && s != "" && (key == "name" || key == "title" || key == n+"name" || key == n+"title"):
					out[k], changed = s+suffix, true
				default:
					out[k] = walk(e, depth+1)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e, depth+1)
			}
			return out
		}
		return v
	}
	fresh, _ := walk(args, 0).(map[string]any)
	if !changed {
		return nil
	}
	raw, err := json.Marshal(fresh)
	if schema, _ := g.create.Compiled(); err != nil || schema.Validate(raw) != nil {
		return nil
	}
	return fresh
}

var uuidPattern = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// findID finds the id of what a create tool made in its answer (text, the
// text of its content blocks, and structured, its structuredContent): a
// JSON field named NOUN_id (NounId), id, NOUN_name or name, the
// shallowest first; else a UUID in the text; else a name-like argument
// (name, title, NOUN_name) that the answer echoes. how says which.
func findID(text string, structured json.RawMessage, noun string, args map[string]any) (id any, how string) {
	for _, doc := range []struct {
		raw  string
		what string
	}{{string(structured), "structuredContent"}, {strings.TrimSpace(text), "the JSON text"}} {
		if doc.raw == "" {
			continue
		}
		var v any
		d := json.NewDecoder(strings.NewReader(doc.raw))
		d.UseNumber()
		if d.Decode(&v) != nil {
			continue
		}
		if id, field := idField(v, noun); id != nil {
			// The field's name is the server's: cut like any of its text.
			return id, "field " + textcut.Excerpt(field, maxFieldName) + " of " + doc.what
		}
	}
	if u := uuidPattern.FindString(text); u != "" {
		return u, "a UUID in the answer"
	}
	n := normKey(noun)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		switch normKey(k) {
		case "name", "title", n + "name", n + "title":
			if s, ok := args[k].(string); ok && s != "" && strings.Contains(text, s) {
				return s, "the " + k + " argument, echoed"
			}
		}
	}
	return nil, ""
}

// maxFieldName bounds the server's field name a detail quotes.
const maxFieldName = 64

// idField searches v breadth first for an id-like field; the first
// element stands for an array.
func idField(v any, noun string) (any, string) {
	n := normKey(noun)
	level := []any{v}
	for depth := 0; depth < 6 && len(level) > 0; depth++ {
		var next []any
		for _, want := range []string{n + "id", "id", n + "name", "name"} {
			for _, x := range level {
				obj, ok := x.(map[string]any)
				if !ok {
					continue
				}
				for _, k := range slices.Sorted(maps.Keys(obj)) {
					if normKey(k) != want {
						continue
					}
					switch val := obj[k].(type) {
					case string:
						if val != "" {
							return val, k
						}
					case json.Number:
						return val, k
					}
				}
			}
		}
		for _, x := range level {
			switch x := x.(type) {
			case map[string]any:
				for _, k := range slices.Sorted(maps.Keys(x)) {
					next = append(next, x[k])
				}
			case []any:
				if len(x) > 0 {
					next = append(next, x[0])
				}
			}
		}
		level = next
	}
	return nil, ""
}
