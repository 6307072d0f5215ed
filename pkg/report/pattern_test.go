package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestPatternSpellsOutOversizeArguments(t *testing.T) {
	item := `{"id":"x"},`
	for name, args := range map[string]string{
		"string":  `{"q":"` + strings.Repeat("A", 65536) + `","n":1}`,
		"array":   `{"ids":[` + strings.Repeat(item, 9999) + `{"id":"x"}]}`,
		"unicode": `{"q":"` + strings.Repeat("é", 40000) + `"}`,
		"two":     `{"a":"` + strings.Repeat("a", 5000) + `","b":[` + strings.Repeat("1,", 5000) + `1]}`,
	} {
		d := DigestArguments(json.RawMessage(args))
		if d.Pattern == nil {
			t.Errorf("%s: no pattern", name)
			continue
		}
		if got := ExpandPattern(d.Pattern); !bytes.Equal(got, []byte(args)) || !d.Matches(got) {
			t.Errorf("%s: the pattern expands to %d bytes, not the %d sent", name, len(got), len(args))
		}
		if b, _ := json.Marshal(d); len(b) > 2048 {
			t.Errorf("%s: digest of %d bytes", name, len(b))
		}
	}
}

func TestNoPatternForIrregularArguments(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{`)
	for i := range 3000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"p` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":` + string(rune('0'+i%10)))
	}
	b.WriteString(`}`)
	if d := DigestArguments(json.RawMessage(b.String())); d.Pattern != nil {
		t.Errorf("a pattern of %d parts for irregular arguments", len(d.Pattern))
	}
}

func BenchmarkDigestOversize(b *testing.B) {
	args := json.RawMessage(`{"q":"` + strings.Repeat("A", 65536) + `"}`)
	for b.Loop() {
		DigestArguments(args)
	}
}
