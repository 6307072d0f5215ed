package casegen

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// What Compile says about the compiling itself, for internal/lint to report: the
// limits it hit, and why the schema as written does not compile even where
// compiling worked around it.
func TestCompileOutcome(t *testing.T) {
	t.Parallel()
	wide := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"p` + itoa(i) + `":{}`)
		}
		return b.String() + `}}`
	}
	tests := []struct {
		name                string
		raw                 string
		compiled            bool
		truncated, tooLarge bool
		err                 string // in CompileError; "" for none
	}{
		{name: "valid", raw: `{"type":"object","properties":{"a":{"type":"string"}}}`, compiled: true},
		{name: "not an object", raw: `[]`},
		{name: "does not compile", raw: `{"type":"object","required":"a"}`, err: "want array"},
		{name: "remote ref", raw: `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, err: "https://example.com/a.json"},
		// Compiled with the pattern matching everything; a validator that
		// reads patterns with Go's syntax refuses the schema.
		{name: "lookahead", raw: `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=x)"}}}`, compiled: true, err: "regex"},
		{name: "broken pattern key", raw: `{"type":"object","patternProperties":{"((":{}}}`, compiled: true, err: "regex"},
		// Compiled as draft 2020-12; the named metaschema is not fetched.
		{name: "unknown metaschema", raw: `{"$schema":"https://example.com/meta","type":"object"}`, compiled: true, err: "https://example.com/meta"},
		{name: "too deep", raw: nested(100), compiled: true, truncated: true},
		// What did not compile is the cut document, not the schema.
		{name: "too deep and broken", raw: `{"type":"object","required":"a","properties":{"a":` + nested(100) + `}}`, truncated: true},
		{name: "most objects", raw: wide(MaxCompileObjects - 2), compiled: true},
		{name: "too many objects", raw: wide(MaxCompileObjects), tooLarge: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := Compile(json.RawMessage(tt.raw))
			if s.Compiled() != tt.compiled || s.Truncated() != tt.truncated || s.TooLarge() != tt.tooLarge {
				t.Errorf("compiled %v, truncated %v, too large %v; want %v, %v, %v",
					s.Compiled(), s.Truncated(), s.TooLarge(), tt.compiled, tt.truncated, tt.tooLarge)
			}
			switch err := s.CompileError(); {
			case tt.err == "" && err != nil:
				t.Errorf("compile error %v, want none", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("compile error %v, want one naming %q", err, tt.err)
			}
		})
	}
}

// A remote reference stops compiling at the loader, which names the URL.
func TestCompileErrorNamesTheRemoteURL(t *testing.T) {
	t.Parallel()
	s, _ := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`))
	var load *jsonschema.LoadURLError
	if !errors.As(s.CompileError(), &load) || load.URL != "https://example.com/a.json" {
		t.Fatalf("compile error %#v", s.CompileError())
	}
}

func TestProblemsAreWhatCompileReturned(t *testing.T) {
	t.Parallel()
	s, probs := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"enum":[]}},"required":"a"}`))
	if len(probs) == 0 || len(s.Problems()) != len(probs) {
		t.Fatalf("Problems() %+v, Compile returned %+v", s.Problems(), probs)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
