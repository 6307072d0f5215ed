package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// minDescription is the shortest description that can say what a tool does.
const minDescription = 12

var (
	// validName is the tool name rule from the MCP specification.
	validName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	// styledSegment is one dot-separated part of a snake_case or kebab-case name.
	styledSegment = regexp.MustCompile(`^[a-z0-9]+([_-][a-z0-9]+)*$`)
)

const descriptionHint = `add "description": "..." saying what the tool does, what it returns and when to use it`

func checkMissingDescription(t *toolInput) []hit {
	if strings.TrimSpace(t.Description) != "" {
		return nil
	}
	return []hit{{
		Pointer: "/description",
		Message: t.ref() + " has no description",
		Hint:    descriptionHint,
	}}
}

func checkShortDescription(t *toolInput) []hit {
	d := strings.TrimSpace(t.Description)
	n := utf8.RuneCountInString(d)
	if n == 0 || n >= minDescription {
		return nil
	}
	return []hit{{
		Pointer: "/description",
		Message: fmt.Sprintf("the description of %s is only %d characters (%s); a model cannot tell from it when to call the tool", t.ref(), n, quote(d)),
		Hint:    "expand the description to a sentence or two: what the tool does, what it returns and when to use it",
	}}
}

func checkDuplicateName(t *toolInput) []hit {
	if t.Name == "" {
		return nil
	}
	first := t.first[t.Name]
	if first == t.index {
		return nil
	}
	return []hit{{
		Pointer: "/name",
		Message: fmt.Sprintf("tool name %s at position %d is already used by the tool at position %d", quote(t.Name), t.index+1, first+1),
		Hint:    `give every tool a unique "name"; a client cannot tell tools with the same name apart`,
	}}
}

func checkInvalidName(t *toolInput) []hit {
	if validName.MatchString(t.Name) {
		return nil
	}
	const hint = `use 1 to 128 characters from A-Z, a-z, 0-9, "_", "-" and ".", e.g. "search_issues"`
	var why string
	switch n := utf8.RuneCountInString(t.Name); {
	case n == 0:
		return []hit{{Pointer: "/name", Message: t.ref() + " has no name", Hint: hint}}
	case n > 128:
		why = fmt.Sprintf("is %d characters long; at most 128 are allowed", n)
	default:
		for _, r := range t.Name {
			if !(r < utf8.RuneSelf && validName.MatchString(string(r))) {
				why = "contains " + strconv.QuoteRune(r) + ", which is not allowed"
				break
			}
		}
	}
	return []hit{{
		Pointer: "/name",
		Message: "tool name " + quote(t.Name) + " " + why,
		Hint:    hint,
	}}
}

func checkNameStyle(t *toolInput) []hit {
	if !validName.MatchString(t.Name) || styled(t.Name) {
		return nil
	}
	snake := toSnake(t.Name)
	return []hit{{
		Pointer: "/name",
		Message: fmt.Sprintf("tool name %s is neither snake_case nor kebab-case", quote(t.Name)),
		Hint:    fmt.Sprintf("rename it to %s (snake_case) or %s (kebab-case) and use one style for every tool", quote(snake), quote(strings.ReplaceAll(snake, "_", "-"))),
	}}
}

// styled reports whether a name is snake_case or kebab-case, optionally
// namespaced with dots, without mixing "_" and "-".
func styled(name string) bool {
	if strings.Contains(name, "_") && strings.Contains(name, "-") {
		return false
	}
	for _, seg := range strings.Split(name, ".") {
		if !styledSegment.MatchString(seg) {
			return false
		}
	}
	return true
}

// toSnake suggests a snake_case spelling: getUserID -> get_user_id.
func toSnake(name string) string {
	var sb strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '-' || r == '_' || r == ' ':
			sb.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					sb.WriteByte('_')
				}
			}
			sb.WriteRune(unicode.ToLower(r))
		default:
			sb.WriteRune(r)
		}
	}
	s := sb.String()
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	s = strings.ReplaceAll(s, "._", ".")
	s = strings.ReplaceAll(s, "_.", ".")
	return strings.Trim(s, "_")
}

// behaviourHints are the annotations that tell a client what a call does.
var behaviourHints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// annotations parses the annotations object; ok is false when it is absent,
// null or not an object.
func (t *toolInput) annotations() (map[string]json.RawMessage, bool) {
	raw := bytes.TrimSpace(t.Annotations)
	if len(raw) == 0 || string(raw) == "null" || raw[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

func checkNoAnnotations(t *toolInput) []hit {
	const hint = `add "annotations": {"readOnlyHint": true} for a tool that only reads, or set "destructiveHint", "idempotentHint" and "openWorldHint" as they apply`
	m, ok := t.annotations()
	raw := bytes.TrimSpace(t.Annotations)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return []hit{{Pointer: "/annotations", Message: t.ref() + " has no annotations, so clients cannot tell whether calling it changes anything", Hint: hint}}
	case !ok:
		return []hit{{Pointer: "/annotations", Message: "the annotations of " + t.ref() + " are not a JSON object", Hint: hint}}
	}
	for _, h := range behaviourHints {
		if _, ok := m[h]; ok {
			return nil
		}
	}
	return []hit{{Pointer: "/annotations", Message: "the annotations of " + t.ref() + " set none of " + strings.Join(behaviourHints, ", "), Hint: hint}}
}

func checkContradictoryAnnotations(t *toolInput) []hit {
	m, ok := t.annotations()
	if !ok || !isTrue(m["readOnlyHint"]) || !isTrue(m["destructiveHint"]) {
		return nil
	}
	return []hit{{
		Pointer: "/annotations",
		Message: t.ref() + ` is annotated both "readOnlyHint": true and "destructiveHint": true`,
		Hint:    `a tool that only reads cannot be destructive: remove "destructiveHint" or set "readOnlyHint": false`,
	}}
}

func isTrue(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "true"
}
