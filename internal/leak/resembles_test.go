package leak

import (
	"encoding/base64"
	"strings"
	"testing"
)

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func TestResembles(t *testing.T) {
	const secret = "vault-s3cr3t-Key-8812"
	d := NewDetector(map[string]string{"--env VAULT": secret, "--bearer": "Bearer Zq9-token-77xy", "--secret PIN": "ab12c"})
	for _, v := range []string{
		secret[:12],                        // a prefix
		"/keys/" + strings.ToUpper(secret), // upper-cased, inside a path
		"x" + secret[5:13] + "y",           // any 8 characters of it
		base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"id-" + reverse(secret),              // reversed
		strings.ToUpper(reverse(secret))[:9], // part of the reversal
		"Zq9-token",                          // the bearer's credential, cut
		"AB12C",                              // a short named secret, whole
		reverse("ab12c"),
	} {
		if !d.Resembles(v) {
			t.Errorf("Resembles(%q) = false", v)
		}
	}
	for _, v := range []string{"/srv/alpha/notes.txt", "vault-entry", "s3cr3t", "TCK-42", "teal", ""} {
		if d.Resembles(v) {
			t.Errorf("Resembles(%q) = true", v)
		}
	}
	if NewDetector(nil).Resembles("anything at all") {
		t.Error("a detector without secrets finds a resemblance")
	}
}
