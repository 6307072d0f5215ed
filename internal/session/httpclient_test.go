package session

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDisplayOriginIsBounded(t *testing.T) {
	t.Parallel()
	u := &url.URL{Scheme: "http", Host: strings.Repeat("é", 300) + ":1"}
	got := displayOrigin(u)
	if len(got) > maxOriginLen+len("…") || !utf8.ValidString(got) {
		t.Errorf("displayOrigin = %d bytes (valid UTF-8: %v), want at most %d", len(got), utf8.ValidString(got), maxOriginLen+len("…"))
	}
}
