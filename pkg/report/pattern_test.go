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
		if got, ok := ExpandPattern(d.Pattern, d.Bytes); !ok || !bytes.Equal(got, []byte(args)) || !d.Matches(got) {
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

// A hostile report's pattern cannot make a reader allocate without end: a
// pattern longer than the limit expands to nothing.
func TestExpandPatternIsBounded(t *testing.T) {
	for _, parts := range [][]PatternPart{
		{{Text: "AAAAAAAAAAAAAAAA", Repeat: 1e15}},
		{{Text: "A", Repeat: 1 << 62}, {Text: "B", Repeat: 1 << 62}},
		{{Text: "ab", Repeat: 6}},
	} {
		if b, ok := ExpandPattern(parts, 10); ok || b != nil {
			t.Errorf("ExpandPattern(%v, 10) = %d bytes, %v; want nothing", parts, len(b), ok)
		}
	}
	if b, ok := ExpandPattern([]PatternPart{{Text: "ab", Repeat: 5}}, 10); !ok || string(b) != "ababababab" {
		t.Errorf("a pattern of exactly the limit: %q, %v", b, ok)
	}
	if _, ok := ExpandPattern([]PatternPart{{Text: "A", Repeat: MaxPatternBytes + 1}}, 1<<40); ok {
		t.Error("the limit is not capped at MaxPatternBytes")
	}
}
