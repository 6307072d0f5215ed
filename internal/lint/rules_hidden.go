package lint

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
)

// maxHiddenShown bounds the distinct hidden characters a message names.
const maxHiddenShown = 3

// hiddenRune reports whether r is text a person reading a tool's metadata
// does not see but a model reads: a character that hides or reorders the
// text around it ([escape.Invisible]: bidirectional controls, zero-width
// characters, C1 controls) or a Unicode tag character (U+E0000 to
// U+E007F, which can spell a whole instruction invisibly).
func hiddenRune(r rune) bool {
	return escape.Invisible(r) || 0xE0000 <= r && r <= 0xE007F
}

// hiddenIn returns the distinct hidden characters of s, in order of
// first appearance, and how many there are in all.
func hiddenIn(s string) (distinct []rune, n int) {
	for _, r := range s {
		if hiddenRune(r) {
			n++
			if !slices.Contains(distinct, r) {
				distinct = append(distinct, r)
			}
		}
	}
	return distinct, n
}

// checkHiddenCharacters flags a tool whose name, description or schema text
// holds characters a reviewer cannot see: the way instructions meant for
// the model alone are smuggled into a tool (tool poisoning).
func checkHiddenCharacters(t *toolInput) []hit {
	var hits []hit
	add := func(pointer, what, s string) {
		distinct, n := hiddenIn(s)
		if n == 0 {
			return
		}
		shown := make([]string, 0, maxHiddenShown)
		for _, r := range distinct[:min(len(distinct), maxHiddenShown)] {
			shown = append(shown, fmt.Sprintf("U+%04X", r))
		}
		if len(distinct) > maxHiddenShown {
			shown = append(shown, "…")
		}
		spelled := ""
		if tags := tagText(s); tags != "" {
			spelled = fmt.Sprintf(", whose tag characters spell %s", strconv.Quote(tags))
		}
		hits = append(hits, hit{
			Pointer: pointer,
			Message: fmt.Sprintf("%s of %s holds %s (%s)%s: text a person reviewing the tool does not see, but a model reads", what, t.ref(), words.Plural(n, "invisible or reordering character", "invisible or reordering characters"), strings.Join(shown, ", "), spelled),
			Hint:    "remove them: a tool's metadata must say to a person what it says to the model",
		})
	}
	add("/name", "the name", t.Name)
	add("/description", "the description", t.Description)
	schemaTexts(t, func(x string) bool { _, n := hiddenIn(x); return n > 0 }, func(ptr, text string) { add(ptr, "a schema text", text) })
	return hits
}

// maxTagText bounds the text the tag characters of a string spell in a
// message.
const maxTagText = 80

// tagText is what the Unicode tag characters of s spell (each stands for
// the ASCII character 0xE0000 below it), cut to maxTagText: an instruction
// hidden from the person reading the tool.
func tagText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 0xE0020 <= r && r <= 0xE007E {
			if b.Len() == maxTagText {
				b.WriteString("…")
				break
			}
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// schemaTexts calls found with the first string of t's input schema, and
// the first of its output schema, that match accepts, and their pointers.
func schemaTexts(t *toolInput, match func(string) bool, found func(ptr, text string)) {
	for _, root := range []string{"/inputSchema", "/outputSchema"} {
		f := textFinder{match: match}
		if text, ok := f.first(t.tree(root)); ok {
			found(root+f.pointer(), text)
		}
	}
}

// textFinder finds the first string (key or value, keys in sorted order) of
// a decoded JSON value that match accepts. It keeps the path as a stack of
// raw segments and spells the pointer only for the hit, so a schema nested
// thousands of levels deep costs time linear in its size.
type textFinder struct {
	match func(string) bool
	path  []string
}

func (f *textFinder) first(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, f.match(x)
	case []any:
		for i, e := range x {
			f.path = append(f.path, strconv.Itoa(i))
			if s, ok := f.first(e); ok {
				return s, true
			}
			f.path = f.path[:len(f.path)-1]
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f.path = append(f.path, casegen.PointerToken(k))
			if f.match(k) {
				return k, true
			}
			if s, ok := f.first(x[k]); ok {
				return s, true
			}
			f.path = f.path[:len(f.path)-1]
		}
	}
	return "", false
}

// pointer is the JSON Pointer of the string first found, relative to the
// value searched.
func (f *textFinder) pointer() string {
	if len(f.path) == 0 {
		return ""
	}
	return "/" + strings.Join(f.path, "/")
}
