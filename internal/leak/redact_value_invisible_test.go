package leak

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// apiKey is a secret given with --env, as a server that read it would echo it.
const apiKey = "apikeyvalue9876543210abc"

// apiKeyDetail is how Find names a leak of apiKey.
const apiKeyDetail = "value of --env API_KEY"

// invisibleClasses has one or more characters of every kind that clean
// removes.
var invisibleClasses = map[string][]rune{
	"zero-width":            {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF},
	"soft hyphen":           {0x00AD},
	"grapheme joiner":       {0x034F},
	"bidi controls":         {0x061C, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069},
	"invisible operators":   {0x2061, 0x2064},
	"deprecated formatting": {0x206A, 0x206F},
	"hangul fillers":        {0x115F, 0x1160, 0x3164, 0xFFA0},
	"khmer vowels":          {0x17B4, 0x17B5},
	"mongolian selectors":   {0x180B, 0x180E, 0x180F},
	"variation selectors":   {0xFE00, 0xFE0F, 0xE0100, 0xE01EF},
	"reserved":              {0xFFF0, 0xFFF8, 0xE0FFF},
	"shorthand format":      {0x1BCA0, 0x1BCA3},
	"musical format":        {0x1D173, 0x1D17A},
	"tag characters":        {0xE0001, 0xE0041, 0xE007F},
}

// jsonEscape returns r as a JSON escape: \uXXXX, or a surrogate pair.
func jsonEscape(r rune) string {
	if r > 0xFFFF {
		hi, lo := utf16Pair(r)
		return fmt.Sprintf(`\u%04x\u%04x`, hi, lo)
	}
	return fmt.Sprintf(`\u%04X`, r)
}

func apiKeyDetector() *Detector {
	return NewDetector(map[string]string{"--env API_KEY": apiKey, "--env OTHER": "other-secret-value"})
}

// leaksAPIKey reports whether Find flags apiKey in text.
func leaksAPIKey(d *Detector, text string) bool {
	for _, m := range d.Find(text) {
		if m.Kind == KindSecretValue && m.Detail == apiKeyDetail {
			return true
		}
	}
	return false
}

func TestRedactValueSplitByInvisible(t *testing.T) {
	t.Parallel()
	d := apiKeyDetector()
	for class, runes := range invisibleClasses {
		for _, r := range runes {
			t.Run(fmt.Sprintf("%s U+%04X", class, r), func(t *testing.T) {
				t.Parallel()
				split := apiKey[:5] + string(r) + apiKey[5:12] + string(r) + string(r) + apiKey[12:]
				text := "key: " + split + "."
				if got, want := d.Redact(text), "key: ***."; got != want {
					t.Errorf("Redact(%q) = %q, want %q", text, got, want)
				}
				got, found := d.RedactText(text)
				if got != "key: ***." || fmt.Sprint(found) != "[--env API_KEY]" {
					t.Errorf("RedactText(%q) = %q, %v", text, got, found)
				}
				if !leaksAPIKey(d, text) {
					t.Errorf("Find(%q) = %+v: no leak of the key", text, d.Find(text))
				}
				for _, m := range d.Find(text) {
					if strings.Contains(m.Excerpt, apiKey[5:12]) {
						t.Errorf("excerpt %q shows part of the key", m.Excerpt)
					}
				}

				// In JSON, raw and escaped.
				for _, raw := range []string{
					`{"result":"` + split + `","n":1}`,
					`{"result":"` + apiKey[:5] + jsonEscape(r) + apiKey[5:] + `","n":1}`,
					`{"result":"{\"inner\":\"` + apiKey[:5] + `\` + jsonEscape(r) + apiKey[5:] + `\"}"}`,
				} {
					out, found := d.RedactJSON(json.RawMessage(raw))
					if !json.Valid(out) || strings.Contains(string(out), apiKey[5:]) || fmt.Sprint(found) != "[--env API_KEY]" {
						t.Errorf("RedactJSON(%s) = %s, %v", raw, out, found)
					}
					if out := d.RedactReport(json.RawMessage(raw)); !json.Valid(out) || strings.Contains(string(out), apiKey[5:]) {
						t.Errorf("RedactReport(%s) = %s", raw, out)
					}
					if !leaksAPIKey(d, raw) {
						t.Errorf("Find(%s): no leak of the key", raw)
					}
				}
			})
		}
	}
}

// TestRedactValueKeepsInvisiblesOutside checks that only the span of the
// secret becomes "***": invisible characters before and after it, and
// elsewhere, stay.
func TestRedactValueKeepsInvisiblesOutside(t *testing.T) {
	t.Parallel()
	d := apiKeyDetector()
	for in, want := range map[string]string{
		"a\u200bb " + apiKey + " c\u200bd":                                        "a\u200bb *** c\u200bd",
		"\u200b" + apiKey[:3] + "\u034f" + apiKey[3:] + "\u200b!":                 "\u200b***\u200b!",
		`{"a":"x\u200by","k":"` + apiKey[:4] + `\u200b` + apiKey[4:] + `\u200b"}`: `{"a":"x\u200by","k":"***\u200b"}`,
		"zero\u200bwidth between words stays as it is":                            "zero\u200bwidth between words stays as it is",
	} {
		if got := d.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactValueNearMisses checks that text that merely resembles a
// secret is left alone and raises no leak.
func TestRedactValueNearMisses(t *testing.T) {
	t.Parallel()
	d := apiKeyDetector()
	for _, text := range []string{
		apiKey[:len(apiKey)-1],                               // a prefix
		apiKey[:len(apiKey)-1] + "d",                         // shares all but the last character
		apiKey[:5] + "\u200b" + apiKey[5:len(apiKey)-1],      // a split prefix
		apiKey[:5] + " " + apiKey[5:],                        // split by a visible space
		apiKey[:5] + "x" + apiKey[5:],                        // split by a letter
		`{"k":"` + apiKey[:5] + `\u0041` + apiKey[5:] + `"}`, // split by an escaped visible letter
	} {
		if got := d.Redact(text); got != text {
			t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
		}
		if leaksAPIKey(d, text) {
			t.Errorf("Find(%q) flags the key", text)
		}
		if got, found := d.RedactText(text); got != text || found != nil {
			t.Errorf("RedactText(%q) = %q, %v", text, got, found)
		}
	}
}

// TestRedactShapesNewInvisibles checks that a token split by one of the
// rarer default-ignorable characters is still redacted by shape.
func TestRedactShapesNewInvisibles(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{0x034F, 0x115F, 0x17B4, 0x180B, 0x3164, 0xFE0F, 0xFFA0, 0x1BCA0, 0x1D173, 0xE0100} {
		text := "t=" + ghToken[:2] + string(r) + ghToken[2:]
		if got := RedactShapes(text); got != "t=***" {
			t.Errorf("RedactShapes(%q) = %q", text, got)
		}
		esc := `{"t":"` + ghToken[:2] + jsonEscape(r) + ghToken[2:] + `"}`
		if got := RedactShapes(esc); got != `{"t":"***"}` {
			t.Errorf("RedactShapes(%s) = %s", esc, got)
		}
	}
}
