// Package words splits identifiers (tool and property names) into
// lower-case words, so that the case generator and the lifecycle planner
// read a name the same way.
package words

import (
	"strconv"
	"strings"
	"unicode"
)

// Split splits name into lower-case words at every rune that is neither a
// letter nor a digit (snake_case, kebab-case, dotted names, spaces) and at
// camelCase humps, an acronym ending where the next word begins:
// "createEntities" and "create-entities" are create, entities;
// "targetURLPath" is target, url, path; "ownerID" is owner, id.
func Split(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, c := range rs {
		switch {
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			flush()
			continue
		case unicode.IsUpper(c) && len(cur) > 0:
			prev := cur[len(cur)-1]
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return words
}

// OrList joins items as a message lists alternatives: "a", "a or b",
// "a, b or c".
func OrList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// Plural counts n of a thing: "1 case", "2 cases".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
