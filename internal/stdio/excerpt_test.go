package stdio

import (
	"bufio"
	"strings"
	"testing"
	"unicode/utf8"
)

// straddle is a secret that begins before byte 200 of a line and ends after
// it, where a report cuts what it shows.
const straddle = "sk-live-0123456789abcdefSECRET"

// The excerpt of a bad line keeps enough for the engine to redact a secret
// that straddles the report's 200-byte cut before it cuts.
func TestViolationExcerptKeepsStraddlingSecret(t *testing.T) {
	pad := strings.Repeat("p", 190-len(`{"jsonrpc":"1.0","x":"`))
	line := `{"jsonrpc":"1.0","x":"` + pad + straddle + `"}`
	_, v := classify([]byte(line))
	if v == nil || !strings.Contains(v.Excerpt, straddle) {
		t.Fatalf("violation %+v: want the whole secret in the excerpt", v)
	}
}

// The head of a line too long to hold is kept as far as excerptLen, and
// its excerpt stays valid UTF-8 with control characters escaped.
func TestLongLineExcerpt(t *testing.T) {
	line := strings.Repeat("p", 190) + straddle + "\x1b[31m" + strings.Repeat("é", 2000)
	r := bufio.NewReaderSize(strings.NewReader(line+"\n"), 16)
	head, tooLong, _ := readLine(r, 100)
	if !tooLong || len(head) != excerptLen {
		t.Fatalf("readLine = %d bytes, tooLong %v; want the first %d bytes", len(head), tooLong, excerptLen)
	}
	got := excerpt(head)
	if !strings.Contains(got, straddle) || !strings.Contains(got, `\x1b[31m`) || !utf8.ValidString(got) {
		t.Errorf("excerpt = %q: want the secret, the escape escaped, valid UTF-8", got)
	}
}
