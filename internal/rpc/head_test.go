package rpc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The head of an oversize answer keeps enough for the engine to redact a
// secret that straddles the report's 200-byte cut before it cuts.
func TestOversizeHeadKeepsStraddlingSecret(t *testing.T) {
	const secret = "sk-live-0123456789abcdefSECRET"
	msg := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("p", 120) + secret + "\x07" + strings.Repeat("é", 4000) + `"}]}}`
	o := NewOversize(summarize(msg), true, []byte(msg))
	if !strings.Contains(o.Head, secret) || !strings.Contains(o.Head, `\x07`) || !utf8.ValidString(o.Head) {
		t.Errorf("Head = %q: want the secret, the bell escaped, valid UTF-8", o.Head)
	}
	if !strings.HasPrefix(o.Head, msg[:200]) {
		t.Errorf("Head %q is not the start of the answer", o.Head)
	}
}
