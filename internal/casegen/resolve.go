package casegen

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// loc is a raw schema value together with its JSON pointer in the document.
type loc struct {
	v   any
	ptr string
}

func (l loc) child(v any, toks ...string) loc {
	return loc{v: v, ptr: l.ptr + pointer(toks)}
}

// Limits that keep hostile schemas from hanging or exhausting the generator.
const (
	maxDepth      = 32               // nesting levels of generated values and of the lint walk
	maxIndexDepth = MaxJSONDepth + 1 // nesting levels indexed for $id / $anchor (all that is kept)
	maxIndexNodes = 100000           // objects indexed for $id / $anchor
	maxRefChain   = 64               // schema parts merged into one node ($ref and allOf expansion)
)

// resolver resolves local references ("#/$defs/x", "#anchor", an embedded
// "$id") inside one document. It never fetches anything.
type resolver struct {
	doc   any
	ids   map[string]string // $id, id (draft-04) and $anchor values -> pointer
	nodes int               // objects seen outside data keywords: the schema's size
}

func newResolver(doc any) *resolver {
	r := &resolver{doc: doc, ids: map[string]string{}}
	r.index(doc, nil, 0)
	return r
}

// index records identifiers; it skips the values of keywords that hold data.
func (r *resolver) index(v any, path []string, depth int) {
	if depth > maxIndexDepth || r.nodes > maxIndexNodes {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		r.nodes++
		for _, key := range []string{"$id", "id"} {
			id, _ := t[key].(string)
			id = strings.TrimSuffix(id, "#")
			if _, dup := r.ids[id]; id != "" && !dup {
				r.ids[id] = pointer(path)
			}
		}
		if a, ok := t["$anchor"].(string); ok && a != "" {
			r.ids["#"+a] = pointer(path)
		}
		for _, k := range sortedKeys(t) {
			switch k {
			case "enum", "const", "default", "examples", "example":
				continue
			}
			r.index(t[k], appendPath(path, k), depth+1)
		}
	case []any:
		for i, e := range t {
			r.index(e, appendPath(path, strconv.Itoa(i)), depth+1)
		}
	}
}

// lookup resolves ref. ok is false for references outside the document or to
// locations that do not exist.
func (r *resolver) lookup(ref string) (loc, bool) {
	base, frag, _ := strings.Cut(ref, "#")
	start := loc{v: r.doc}
	if base != "" {
		p, ok := r.ids[base]
		if !ok {
			return loc{}, false
		}
		v, ok := lookupPointer(r.doc, p)
		if !ok {
			return loc{}, false
		}
		start = loc{v: v, ptr: p}
	}
	if frag == "" {
		return start, true
	}
	if dec, err := url.PathUnescape(frag); err == nil {
		frag = dec
	}
	if !strings.HasPrefix(frag, "/") {
		p, ok := r.ids["#"+frag]
		if !ok {
			return loc{}, false
		}
		v, ok := lookupPointer(r.doc, p)
		return loc{v: v, ptr: p}, ok
	}
	v, ok := lookupPointer(start.v, frag)
	if !ok {
		return loc{}, false
	}
	return loc{v: v, ptr: start.ptr + frag}, true
}

// isRemote reports whether ref points outside the document: it has a part
// before "#" that names no embedded "$id".
func (r *resolver) isRemote(ref string) bool {
	base, _, _ := strings.Cut(ref, "#")
	if base == "" {
		return false
	}
	_, ok := r.ids[base]
	return !ok
}

// lookupPointer follows a JSON pointer ("" or "/a/0/b") inside v.
func lookupPointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	toks := strings.Split(ptr[1:], "/")
	for i := range toks {
		toks[i] = ptrUnescaper.Replace(toks[i])
	}
	return getAt(v, toks)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
