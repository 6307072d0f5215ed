package jsonclip

import (
	"encoding/json"
	"strings"
	"testing"
)

func nested(n int) string {
	return strings.Repeat(`{"a":[`, n) + `"x]}{"` + strings.Repeat(`]}`, n)
}

func TestClipKeepsShallowDocuments(t *testing.T) {
	in := []byte(`{"a":[1,{"b":"}]{["}],"c":null}`)
	out, clipped := Clip(in, 3)
	if clipped || string(out) != string(in) {
		t.Fatalf("Clip changed a shallow document: %s %v", out, clipped)
	}
	if d := Depth(in); d != 3 {
		t.Fatalf("Depth = %d, want 3 (brackets in strings ignored)", d)
	}
}

func TestClipDeepDocument(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":1,"result":` + nested(6000) + `}`)
	var v any
	if err := json.Unmarshal(in, &v); err == nil {
		t.Fatal("test premise: a 12,000-deep document should be refused by encoding/json")
	}
	out, clipped := Clip(in, 100)
	if !clipped {
		t.Fatal("not clipped")
	}
	if d := Depth(out); d > 100 {
		t.Fatalf("depth after clip = %d", d)
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("clipped document does not decode: %v", err)
	}
	if !strings.Contains(string(out), Marker) {
		t.Fatal("marker missing")
	}
	if !strings.HasPrefix(string(out), `{"jsonrpc":"2.0","id":1,"result":{"a":[`) {
		t.Fatalf("prefix changed: %.60s", out)
	}
}

func FuzzClip(f *testing.F) {
	f.Add([]byte(`{"a":[{"b":{}}]}`), 2)
	f.Add([]byte(nested(50)), 10)
	f.Add([]byte(`["\"[[[", [[[]]]]`), 1)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 64 {
			return
		}
		out, _ := Clip(data, max)
		if json.Valid(data) {
			if !json.Valid(out) {
				t.Fatalf("valid input %q clipped to invalid %q", data, out)
			}
			if Depth(out) > max {
				t.Fatalf("depth %d > %d", Depth(out), max)
			}
		}
	})
}

func TestClipWithScalar(t *testing.T) {
	out, clipped := ClipWith([]byte(`{"a":{"b":{"c":[1]}},"d":"{[x"}`), 2, []byte("true"))
	if !clipped || string(out) != `{"a":{"b":true},"d":"{[x"}` {
		t.Fatalf("ClipWith = %s, %v", out, clipped)
	}
}
