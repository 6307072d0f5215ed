package leak

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact gives a detector two secrets (the second also as a bearer
// credential) and checks Redact and Find on arbitrary text: no secret
// value, nor its JSON-escaped or URL-encoded form, survives Redact, in any
// ASCII letter case and with invisible characters inside; redacting
// again changes nothing (no token or secret is left); Find sees no secret
// value in redacted text; and Find's excerpts never show a secret.
func FuzzRedact(f *testing.F) {
	f.Add("token=hunter22 and Bearer s3cr3t-value in the log", "hunter22", "s3cr3t-value", true)
	f.Add(`{"echo":"p\"w<>&é","key":"`+awsKey+`"}`, `p"w<>&é`, "unused-secret", false)
	f.Add("https://u:pa%24%24word@host/x?k=pa%24%24word", "pa$$word", "pa$$word", true)
	f.Add("abcdefghi", "abcdef", "defghi", false)
	f.Add("xx*****yy x***x***", "x***", "****", true)
	f.Add("AKIA"+"hunter22"+"IOSFODNN7EXAMPLE", "hunter22", "ghp_", false)
	f.Add("\u202e\u009bsecret-\u00e9\U0001F600 at f (/app/x.js:1:2)\n"+ghToken, "secret-\u00e9\U0001F600", " spaced ", true)
	f.Add(strings.Repeat("abc", 100), "abcabc", "cab", false)
	f.Add("\xff\xfe\xfdinvalid\xff", "\xff\xfeinv", "invalid\xff", true)
	f.Add("k=apike\u200byVALUE987 %61%70%69%6b%65%79%76%61%6c%75%65%39%38%37", "apikeyvalue987", "other", false)
	f.Add(`{"k":"APIKE\u034fYVALUE987","v":"s\u200b3cr3t\\u200b-x"}`, "apikeyvalue987", "s3cr3t-x", true)
	f.Add("ab\u200bcd ab\u200b", "ab\u200bcd", "\u200b\u200b", false)
	f.Fuzz(func(t *testing.T, text, s1, s2 string, bearer bool) {
		secrets := map[string]string{"--env A": s1, "--env B": s2}
		if bearer {
			secrets["--header Authorization"] = "Bearer " + s2
		}
		d := NewDetector(secrets)
		given := []string{s1, s2}
		if bearer {
			given = append(given, strings.TrimSpace(s2))
		}
		var values []string // every secret, as is, JSON-escaped and URL-encoded
		for _, v := range given {
			if len(v) < MinSecretLen {
				continue
			}
			values = append(values, v, url.QueryEscape(v))
			for _, html := range []bool{true, false} {
				var sb strings.Builder
				enc := json.NewEncoder(&sb)
				enc.SetEscapeHTML(html)
				_ = enc.Encode(v)
				if q := strings.TrimSpace(sb.String()); len(q) >= 2+MinSecretLen {
					values = append(values, q[1:len(q)-1])
				}
			}
		}

		out := d.Redact(text)
		for _, v := range values {
			if strings.Contains(out, v) {
				t.Fatalf("Redact(%q) = %q still holds %q", text, out, v)
			}
		}
		if again := d.Redact(out); again != out {
			t.Fatalf("Redact is not idempotent: %q -> %q -> %q", text, out, again)
		}
		// Nor does one survive in another letter case or split by invisible
		// characters.
		seen, _ := clean(out)
		seen = foldASCII(seen)
		for _, v := range values {
			if c, _ := clean(v); len(c) >= MinSecretLen && strings.Contains(seen, foldASCII(c)) {
				t.Fatalf("Redact(%q) = %q still holds %q, cleaned", text, out, v)
			}
		}
		for _, m := range d.Find(out) {
			if m.Kind == KindSecretValue {
				t.Fatalf("Find sees %s in redacted text %q", m.Detail, out)
			}
		}
		for _, m := range d.Find(text) {
			if !utf8.ValidString(m.Excerpt) && utf8.ValidString(text) {
				t.Fatalf("excerpt %q is not valid UTF-8", m.Excerpt)
			}
			for _, v := range values {
				if strings.Contains(m.Excerpt, v) {
					t.Fatalf("excerpt %q of %q shows %q", m.Excerpt, text, v)
				}
			}
		}
	})
}
