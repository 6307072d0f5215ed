package escape

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{"\"\u009b[31m\"", `"\u009b[31m"`},
		{"\"\x7f\u0080\u009f\u00a0\"", `"\u007f\u0080\u009f` + "\u00a0\""},
		{"\"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\"",
			`"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"`},
		{"\"\u2028\u2029\"", `"\u2028\u2029"`},
		{"{\"k\u202e\": [\"é\u200d🎉\"]}", `{"k\u202e": ["é` + "\u200d🎉\"]}"},
		{"\"\xff\u0085\"", "\"\xff\\u0085\""}, // invalid UTF-8 passes through
	}
	for _, tt := range tests {
		if got := string(JSON([]byte(tt.in))); got != tt.want {
			t.Errorf("JSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	in := []byte(`{"nothing":"to do"}`)
	if out := JSON(in); &out[0] != &in[0] {
		t.Error("JSON copied input that needs no escaping")
	}
}

// FuzzJSON checks that [JSON] leaves no hidden character raw and never
// changes what a JSON document means: s is encoded as a string, as an object
// key and inside a raw message, and raw is used as is when it is valid JSON.
func FuzzJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, s)
	}
	f.Add("\u009b[31m\x7f\u202e\u2066\u200f\u061c\u2028", `{"a":["\u009b",1e5,true,null,"`+"\u202e"+`"]}`)
	f.Add("", "\"\u0085\" ")
	f.Add("0", "1E700")
	f.Fuzz(func(t *testing.T, s, raw string) {
		obj, _ := json.Marshal(map[string]any{s: []any{s, 1.5, nil}})
		str, _ := json.MarshalIndent(s, "", "  ")
		docs := [][]byte{obj, str}
		// A raw message is copied without escaping: the hidden characters
		// of s stay raw in it.
		if b, err := json.Marshal(json.RawMessage(`"` + s + `"`)); err == nil {
			docs = append(docs, b)
		}
		if json.Valid([]byte(raw)) {
			docs = append(docs, []byte(raw))
		}
		for _, b := range docs {
			out := JSON(b)
			if !json.Valid(out) {
				t.Fatalf("JSON(%q) = %q: not valid JSON", b, out)
			}
			want, err := decode(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decode(out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("JSON(%q) = %q decodes to %#v, want %#v", b, out, got, want)
			}
			for i, r := range string(out) {
				if r != utf8.RuneError && (hidden(r) || r == 0x2028 || r == 0x2029) {
					t.Fatalf("JSON(%q) = %q: raw %U at %d", b, out, r, i)
				}
			}
		}
	})
}

// decode decodes one JSON document, keeping numbers as written (1E700 does
// not fit a float64).
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func TestXMLVisible(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"c1", XMLClean("a\u009b[31mb\x7f", 0), `a\u009b[31mb\u007f`},
		{"bidi", XMLClean("x\u202eexe.txt\u202c", 0), `x\u202eexe.txt\u202c`},
		{"c0", XMLClean("a\x00b\x01\tc\nd", 0), "a\\u0000b\\u0001\tc\nd"},
		{"esc", XMLClean("\x1b[31mred\x1b[0m", 0), "red"},
		{"line", XMLLine("a\nb\tc\u2066d", 0), `a b c\u2066d`},
		{"cut", XMLLine("\u202eabc", 8), `\u202ea…`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
