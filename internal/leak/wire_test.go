package leak

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRedactJSON(t *testing.T) {
	d := NewDetector(map[string]string{"--env API_TOKEN": "canary-7f3a9c1e5b", "--env QUOTED": `a"b,c:d}e`})
	for _, tc := range []struct {
		name, in string
		found    []string
	}{
		{"plain", `{"serverInfo":{"name":"srv canary-7f3a9c1e5b","version":"1"}}`, []string{"--env API_TOKEN"}},
		{"key", `{"canary-7f3a9c1e5b":1}`, []string{"--env API_TOKEN"}},
		{"escaped twice", `{"text":"{\"t\":\"canary-7f3a9c1e5b\"}"}`, []string{"--env API_TOKEN"}},
		{"unicode escaped", `{"t":"\u0063anary-7f3a9c1e5b"}`, []string{"--env API_TOKEN"}}, // a hostile server's spelling: found once decoded
		{"quote in secret", `{"x":"a\"b,c:d}e","y":[1,2]}`, []string{"--env QUOTED"}},
		{"none", `{"x":1}`, nil},
	} {
		out, found := d.RedactJSON(json.RawMessage(tc.in))
		if !slices.Equal(found, tc.found) {
			t.Errorf("%s: found %q, want %q", tc.name, found, tc.found)
		}
		if !json.Valid(out) {
			t.Errorf("%s: output is not JSON: %s", tc.name, out)
		}
		if len(tc.found) > 0 && (strings.Contains(string(out), "canary-7f3a9c1e5b") || strings.Contains(string(out), `a\"b,c:d}e`)) {
			t.Errorf("%s: secret left in %s", tc.name, out)
		}
	}
}

// A secret whose plain form spans JSON structure must not break the value:
// the fallback redacts string by string.
func TestRedactJSONKeepsStructure(t *testing.T) {
	d := NewDetector(map[string]string{"--env S": `","b":"`})
	in := `{"a":"x","b":"y"}` // the secret's plain form occurs across two members
	out, _ := d.RedactJSON(json.RawMessage(in))
	var v map[string]string
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("redaction broke the JSON: %s (%v)", out, err)
	}
	if v["a"] != "x" || v["b"] != "y" {
		t.Errorf("values changed: %v", v)
	}
}

func TestRedactTextAndSources(t *testing.T) {
	d := NewDetector(map[string]string{"--bearer": "Bearer tok-123456789", "--env K": "value-abcdefgh"})
	text, found := d.RedactText("auth tok-123456789 and value-abcdefgh")
	if strings.Contains(text, "tok-123456789") || strings.Contains(text, "value-abcdefgh") {
		t.Errorf("not redacted: %q", text)
	}
	if want := []string{"--bearer", "--env K"}; !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
	if got := d.Sources("nothing here"); got != nil {
		t.Errorf("Sources = %q, want none", got)
	}
	if !NewDetector(nil).Empty() || d.Empty() {
		t.Error("Empty is wrong")
	}
}

// BenchmarkRedactJSONClean is the cost of redacting a clean answer with
// escapes in it (a 4 KiB text of lines, one \u escape each): no secret, so
// nothing is replaced, but the text is decoded and looked through again.
func BenchmarkRedactJSONClean(b *testing.B) {
	d := NewDetector(map[string]string{"--env API_TOKEN": "canary-7f3a9c1e5b"})
	text := strings.Repeat(`line of output \"quoted\" \u00e9\n`, 128)
	raw := json.RawMessage(`{"content":[{"type":"text","text":"` + text + `"}]}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		d.RedactJSON(raw)
	}
}
