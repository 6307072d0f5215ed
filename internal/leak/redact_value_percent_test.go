package leak

import (
	"fmt"
	"strings"
	"testing"
)

// percentAll writes every byte of s as %xx, with hex digits from digits.
func percentAll(s, digits string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		sb.WriteByte('%')
		sb.WriteByte(digits[s[i]>>4])
		sb.WriteByte(digits[s[i]&0xF])
	}
	return sb.String()
}

// TestRedactValuePercentEncoded checks the percent-encoded forms of a
// secret: every byte escaped (lower-, upper- and mixed-case hex), and only
// the bytes outside RFC 3986's unreserved characters escaped.
func TestRedactValuePercentEncoded(t *testing.T) {
	t.Parallel()
	const special = "p@ss word/with:colons&more"
	d := NewDetector(map[string]string{"--env API_KEY": apiKey, "--env SPECIAL": special})
	for _, tc := range []struct{ encoded, name string }{
		{percentAll(apiKey, "0123456789abcdef"), "--env API_KEY"},
		{percentAll(apiKey, "0123456789ABCDEF"), "--env API_KEY"},
		{"%61%70%69%6B%65%79" + percentAll(apiKey[6:], "0123456789abcdef"), "--env API_KEY"},
		{"%61%70%69%6b%65\u200b%79" + percentAll(apiKey[6:], "0123456789ABCDEF"), "--env API_KEY"},
		{percentAll(special, "0123456789abcdef"), "--env SPECIAL"},
		{"p%40ss%20word%2Fwith%3Acolons%26more", "--env SPECIAL"},
		{"p%40ss%20word%2fwith%3acolons%26more", "--env SPECIAL"},
		{"p%40ss+word%2Fwith%3Acolons%26more", "--env SPECIAL"}, // a query
	} {
		text := "GET /x?k=" + tc.encoded + " HTTP/1.1"
		if got := d.Redact(text); got != "GET /x?k=*** HTTP/1.1" {
			t.Errorf("Redact(%q) = %q", text, got)
		}
		if _, found := d.RedactText(text); fmt.Sprint(found) != "["+tc.name+"]" {
			t.Errorf("RedactText(%q) found %v, want %s", text, found, tc.name)
		}
		var flagged bool
		for _, m := range d.Find(text) {
			flagged = flagged || m.Kind == KindSecretValue && m.Detail == "value of "+tc.name
		}
		if !flagged {
			t.Errorf("Find(%q) = %+v: no leak of %s", text, d.Find(text), tc.name)
		}
	}
	// A prefix, percent-encoded, is no leak.
	text := percentAll(apiKey[:len(apiKey)-1], "0123456789abcdef")
	if got := d.Redact(text); got != text {
		t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
	}
}

func TestPercentEncode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		reserved bool
		want     string
	}{
		{"a b~", false, "%61%20%62%7E"},
		{"a b~-._/é", true, "a%20b~-._%2F%C3%A9"},
		{"", true, ""},
	} {
		if got := percentEncode(tc.in, tc.reserved); got != tc.want {
			t.Errorf("percentEncode(%q, %v) = %q, want %q", tc.in, tc.reserved, got, tc.want)
		}
	}
}
