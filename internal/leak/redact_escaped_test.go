package leak

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRedactJSONEscapedSecret: a server may write any character of a JSON
// string as \uXXXX. A secret spelled that way is the secret once decoded,
// so the answer is redacted string by string, stays valid JSON, and names
// the secret, however the escapes are placed.
func TestRedactJSONEscapedSecret(t *testing.T) {
	t.Parallel()
	const secret = "sekrit-canary-123456"
	d := NewDetector(map[string]string{"--env API_TOKEN": secret})
	for _, spelled := range []string{
		`\u0073\u0065\u006b\u0072\u0069\u0074-canary-123456`,
		`sekrit-canary-12345\u0036`,
		`sekrit\u002dcanary\u002d123456`,
	} {
		raw := json.RawMessage(`{"content":[{"type":"text","text":"env: ` + spelled + `"}],"structuredContent":{"k":"` + spelled + `"}}`)
		out, found := d.RedactJSON(raw)
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s: redacted answer is not JSON: %v: %s", spelled, err, out)
		}
		decoded, _ := json.Marshal(v)
		if strings.Contains(UnescapeJSON(string(out)), "sekrit") || strings.Contains(string(decoded), "sekrit") || fmt.Sprint(found) != "[--env API_TOKEN]" {
			t.Errorf("RedactJSON(%s) = %s, found %v", raw, out, found)
		}
	}
	// An answer with escapes but no secret is left byte for byte.
	clean := json.RawMessage(`{"text":"line\nnext \u00e9"}`)
	if out, found := d.RedactJSON(clean); string(out) != string(clean) || found != nil {
		t.Errorf("clean answer changed: %s %v", out, found)
	}
}

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
