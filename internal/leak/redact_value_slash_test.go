package leak

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRedactValueEscapedSlash: PHP's JSON encoder writes "/" as "\/" by
// default, so a secret holding a slash (base64 often does) reaches the
// report in that form unless it is one of the forms looked for; the same
// holds inside a JSON string encoded twice.
func TestRedactValueEscapedSlash(t *testing.T) {
	t.Parallel()
	const secret = "Zk3/9xQv+Lm/pW2r8Tn0"
	d := NewDetector(map[string]string{"--env API_TOKEN": secret})
	once := strings.ReplaceAll(secret, "/", `\/`)
	twice, _ := json.Marshal(`{"dsn":"` + once + `"}`)
	for _, text := range []string{
		`{"dsn":"mysql://app:` + once + `@db/prod"}`,
		string(twice),
	} {
		got, found := d.RedactText(text)
		if strings.Contains(got, "9xQv") || fmt.Sprint(found) != "[--env API_TOKEN]" {
			t.Errorf("RedactText(%s) = %s, found %v", text, got, found)
		}
	}
	// Without the slashes' escapes it was always found; a prefix is no leak.
	if got, _ := d.RedactText(once[:len(once)-1]); got != once[:len(once)-1] {
		t.Errorf("a prefix was redacted: %s", got)
	}
}
