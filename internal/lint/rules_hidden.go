package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
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
		hits = append(hits, hit{
			Pointer: pointer,
			Message: fmt.Sprintf("%s of %s holds %d invisible or reordering characters (%s): text a person reviewing the tool does not see, but a model reads", what, t.ref(), n, strings.Join(shown, ", ")),
			Hint:    "remove them: a tool's metadata must say to a person what it says to the model",
		})
	}
	add("/name", "the name", t.Name)
	add("/description", "the description", t.Description)
	schemaTexts(t, func(x string) bool { _, n := hiddenIn(x); return n > 0 }, func(ptr, text string) { add(ptr, "a schema text", text) })
	return hits
}

// schemaTexts calls found with the first string of t's input schema, and
// the first of its output schema, that match accepts, and their pointers.
func schemaTexts(t *toolInput, match func(string) bool, found func(ptr, text string)) {
	for _, root := range []string{"/inputSchema", "/outputSchema"} {
		if ptr, text, ok := firstString(t.tree(root), root, match); ok {
			found(ptr, text)
		}
	}
}

// firstString finds the first string (key or value, keys in sorted order)
// of a decoded JSON value that match accepts, and its pointer.
func firstString(v any, ptr string, match func(string) bool) (string, string, bool) {
	switch x := v.(type) {
	case string:
		if match(x) {
			return ptr, x, true
		}
	case []any:
		for i, e := range x {
			if p, s, ok := firstString(e, fmt.Sprintf("%s/%d", ptr, i), match); ok {
				return p, s, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			if match(k) {
				return p, k, true
			}
			if p, s, ok := firstString(x[k], p, match); ok {
				return p, s, true
			}
		}
	}
	return "", "", false
}
