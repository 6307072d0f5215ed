package leak

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRedactValueAnyCase checks that a secret written in another letter
// case is still redacted and flagged, in text, in JSON and in a report.
func TestRedactValueAnyCase(t *testing.T) {
	t.Parallel()
	d := apiKeyDetector()
	for _, v := range []string{
		strings.ToUpper(apiKey),
		"ApiKeyValue9876543210ABC",
		strings.ToUpper(apiKey[:5]) + "\u200b" + apiKey[5:], // and split
	} {
		text := "echo " + v + " done"
		if got := d.Redact(text); got != "echo *** done" {
			t.Errorf("Redact(%q) = %q", text, got)
		}
		if !leaksAPIKey(d, text) {
			t.Errorf("Find(%q): no leak of the key", text)
		}
		raw := `{"echo":"` + strings.ReplaceAll(v, "\u200b", `\u200B`) + `"}`
		out, found := d.RedactJSON(json.RawMessage(raw))
		if string(out) != `{"echo":"***"}` || fmt.Sprint(found) != "[--env API_KEY]" {
			t.Errorf("RedactJSON(%s) = %s, %v", raw, out, found)
		}
		if out := d.RedactReport(json.RawMessage(raw)); string(out) != `{"echo":"***"}` {
			t.Errorf("RedactReport(%s) = %s", raw, out)
		}
	}
}

// TestRedactValueCaseKeepsOtherBytes checks that only ASCII letters are
// folded: a secret with other letters must keep them, and positions in a
// text with multi-byte characters (whose lower case would be longer or
// shorter) are right.
func TestRedactValueCaseKeepsOtherBytes(t *testing.T) {
	t.Parallel()
	d := NewDetector(map[string]string{"--env U": "ünïcödé-Sécret"})
	for in, want := range map[string]string{
		"İİ ÜNÏCÖDÉ-SÉCRET ÜNÏCÖDÉ-SÉCRET": "İİ ÜNÏCÖDÉ-SÉCRET ÜNÏCÖDÉ-SÉCRET", // non-ASCII letters are not folded
		"İİ ünïcödé-SéCRET İ":              "İİ *** İ",
		"Ⱥ\xff ünïcödé-sécret\xfe":         "Ⱥ\xff ***\xfe",
	} {
		if got := d.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
