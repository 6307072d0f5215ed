package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// toolChanged is the rule of [Changed]. It is not in the table: it
// compares two listings instead of reading one.
var toolChanged = rule{Code: "tool_changed", Severity: SeverityError}

const changedHint = "keep each tool as the server first listed it for the whole session: the user approved that definition, and a tool that changes afterwards (a rug pull) is how a harmless tool turns malicious"

// excerptContext is how many characters before the first difference an
// excerpt keeps.
const excerptContext = 24

// Changed compares two listings of one server's tools made in one run (by
// mcp-fuzz, at its start and again at its end) and reports, as
// tool_changed, each tool whose title, description, input schema, output
// schema or annotations differ between them, each tool of the first
// listing missing from the second and each tool of the second missing
// from the first (docs/BEHAVIOUR.md#static-lint). Schemas and annotations
// are compared as JSON values: key order, spacing and the spelling of a
// number do not count. A name listed twice is compared by its first entry
// (duplicate_tool_name reports the rest). The findings come in the order
// of the first listing, the tools added last; the same listings give none.
func Changed(first, second []Tool) []report.Lint {
	before, after := firstIndex(first), firstIndex(second)
	var out []report.Lint
	for i, t := range first {
		if before[t.Name] != i {
			continue
		}
		ref := (&toolInput{Tool: t, index: i}).ref()
		j, ok := after[t.Name]
		if !ok {
			out = append(out, toolChanged.finding(t.Name, hit{
				Message: ref + " was listed first but is missing when the tools are listed again",
				Hint:    changedHint,
			}))
			continue
		}
		for _, h := range toolDiffs(ref, t, second[j]) {
			out = append(out, toolChanged.finding(t.Name, h))
		}
	}
	for j, t := range second {
		if _, ok := before[t.Name]; ok || after[t.Name] != j {
			continue
		}
		out = append(out, toolChanged.finding(t.Name, hit{
			Message: (&toolInput{Tool: t, index: j}).ref() + " was not listed first but appears when the tools are listed again",
			Hint:    changedHint,
		}))
	}
	return out
}

// firstIndex maps each name of tools to where it first appears.
func firstIndex(tools []Tool) map[string]int {
	m := make(map[string]int, len(tools))
	for i, t := range tools {
		if _, ok := m[t.Name]; !ok {
			m[t.Name] = i
		}
	}
	return m
}

// toolDiffs lists what differs between two listings a and b of the tool
// ref names, one hit a field.
func toolDiffs(ref string, a, b Tool) []hit {
	var hits []hit
	text := func(pointer, what, x, y string) {
		if x == y {
			return
		}
		ex, ey := excerpts(x, y)
		hits = append(hits, hit{
			Pointer: pointer,
			Message: fmt.Sprintf("the %s of %s changed: %s became %s", what, ref, `"`+ex+`"`, `"`+ey+`"`),
			Hint:    changedHint,
		})
	}
	value := func(pointer, what string, x, y json.RawMessage) {
		at, vx, vy, ok := jsonDiff(x, y)
		if !ok {
			return
		}
		where := ""
		if at != "" {
			where = " at " + at
		}
		ex, ey := excerpts(vx, vy)
		hits = append(hits, hit{
			Pointer: pointer + at,
			Message: fmt.Sprintf("the %s of %s changed%s: %s became %s", what, ref, where, ex, ey),
			Hint:    changedHint,
		})
	}
	text("/title", "title", a.Title, b.Title)
	text("/description", "description", a.Description, b.Description)
	value("/inputSchema", "input schema", a.InputSchema, b.InputSchema)
	value("/outputSchema", "output schema", a.OutputSchema, b.OutputSchema)
	value("/annotations", "annotations", a.Annotations, b.Annotations)
	return hits
}

// absent stands for a value one listing does not have.
const absent = "(absent)"

// jsonDiff compares two raw JSON values as values. When they differ, it
// returns the JSON Pointer of the first difference (keys in sorted order)
// and the two values there, spelled as compact JSON ([absent] for a value
// one side lacks). Raw text that is not JSON is compared as text.
func jsonDiff(x, y json.RawMessage) (at, vx, vy string, differ bool) {
	x, y = bytes.TrimSpace(x), bytes.TrimSpace(y)
	dx, okx := decodeJSON(x)
	dy, oky := decodeJSON(y)
	switch {
	case len(x) == 0 && len(y) == 0:
		return "", "", "", false
	case !okx || !oky || len(x) == 0 || len(y) == 0:
		if bytes.Equal(x, y) {
			return "", "", "", false
		}
		return "", rawText(x), rawText(y), true
	}
	var f valueDiffer
	a, b, ok := f.first(dx, dy)
	if !ok {
		return "", "", "", false
	}
	return f.pointer(), a, b, true
}

// decodeJSON decodes raw keeping numbers as written; ok is false for text
// that is not one JSON value.
func decodeJSON(raw []byte) (any, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// rawText spells a raw value for a message: absent when there is none.
func rawText(raw []byte) string {
	if len(raw) == 0 {
		return absent
	}
	return string(raw)
}

// valueDiffer finds the first difference of two decoded JSON values,
// keeping the path as a stack of segments (see [textFinder]).
type valueDiffer struct {
	path []string
}

// first returns the values at the first difference of x and y, spelled as
// compact JSON, and whether there is one.
func (f *valueDiffer) first(x, y any) (string, string, bool) {
	switch a := x.(type) {
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(a)+len(b))
		for k := range a {
			keys = append(keys, k)
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			f.path = append(f.path, casegen.PointerToken(k))
			va, ina := a[k]
			vb, inb := b[k]
			switch {
			case !ina:
				return absent, compactJSON(vb), true
			case !inb:
				return compactJSON(va), absent, true
			}
			if sa, sb, ok := f.first(va, vb); ok {
				return sa, sb, true
			}
			f.path = f.path[:len(f.path)-1]
		}
		return "", "", false
	case []any:
		b, ok := y.([]any)
		if !ok {
			break
		}
		for i := range max(len(a), len(b)) {
			f.path = append(f.path, strconv.Itoa(i))
			switch {
			case i >= len(a):
				return absent, compactJSON(b[i]), true
			case i >= len(b):
				return compactJSON(a[i]), absent, true
			}
			if sa, sb, ok := f.first(a[i], b[i]); ok {
				return sa, sb, true
			}
			f.path = f.path[:len(f.path)-1]
		}
		return "", "", false
	case json.Number:
		if b, ok := y.(json.Number); ok && sameNumber(a, b) {
			return "", "", false
		}
	default:
		if x == y {
			return "", "", false
		}
	}
	return compactJSON(x), compactJSON(y), true
}

// pointer is the JSON Pointer of the difference found.
func (f *valueDiffer) pointer() string {
	if len(f.path) == 0 {
		return ""
	}
	return "/" + strings.Join(f.path, "/")
}

// sameNumber reports whether two JSON numbers are the same value (1, 1.0
// and 1e0 are), as far as a float64 tells; numbers beyond its range are
// compared as written.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, erra := strconv.ParseFloat(string(a), 64)
	fb, errb := strconv.ParseFloat(string(b), 64)
	return erra == nil && errb == nil && fa == fb
}

// compactJSON spells a decoded value as compact JSON, keys sorted, without
// escaping <, > and & (a message is escaped where it is shown).
func compactJSON(v any) string {
	var sb strings.Builder
	e := json.NewEncoder(&sb)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return "?"
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// excerpts cuts x and y for a message to at most maxNameLen characters
// each, both starting shortly before the first place they differ, so that
// a change at the end of a long text shows; a cut is marked with "…".
func excerpts(x, y string) (string, string) {
	d := 0
	for d < len(x) && d < len(y) && x[d] == y[d] {
		d++
	}
	for d > 0 && (d < len(x) && !utf8.RuneStart(x[d]) || d < len(y) && !utf8.RuneStart(y[d])) {
		d--
	}
	start := d
	for n := 0; start > 0 && n < excerptContext; n++ {
		_, size := utf8.DecodeLastRuneInString(x[:start])
		start -= size
	}
	cut := func(s string) string {
		if s == absent {
			return s
		}
		out := truncate(s[start:], maxNameLen)
		if start > 0 {
			out = "…" + out
		}
		return out
	}
	return cut(x), cut(y)
}
