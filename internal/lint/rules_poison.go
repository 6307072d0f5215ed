package lint

import (
	"fmt"
	"regexp"
)

// modelDirected matches text written for the model rather than the person
// reviewing a tool, as the published tool-poisoning attacks write it: tags
// that address the model, orders to drop earlier instructions, orders to
// keep something from the user, and the key files such text asks for.
var modelDirected = regexp.MustCompile(`(?i)` +
	`<\s*/?\s*(important|system|instructions?|secret)\s*>` +
	`|\bignore\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|other)\s+(instructions|prompts|rules)\b` +
	`|\b(do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show|notify)\s+(this\s+|it\s+|anything\s+)?(to\s+)?the\s+user\b` +
	`|\bwithout\s+(telling|informing|notifying|alerting)\s+the\s+user\b` +
	`|~/\.ssh\b|\bid_(rsa|ed25519|ecdsa)\b|\.aws/credentials\b`)

// checkModelDirected flags a tool whose description or schema text speaks
// to the model behind the user's back (tool poisoning).
func checkModelDirected(t *toolInput) []hit {
	var hits []hit
	add := func(pointer, what, s string) {
		m := modelDirected.FindString(s)
		if m == "" {
			return
		}
		hits = append(hits, hit{
			Pointer: pointer,
			Message: fmt.Sprintf("%s of %s speaks to the model, not the user: %s", what, t.ref(), quote(m)),
			Hint:    "describe what the tool does; instructions the user does not see, or requests for key files, are how a tool is poisoned",
		})
	}
	add("/description", "the description", t.Description)
	schemaTexts(t, modelDirected.MatchString, func(ptr, text string) { add(ptr, "a schema text", text) })
	return hits
}
