package casegen

import (
	"bytes"
	"reflect"
	"testing"
)

// Every case of a plan is rebuilt byte for byte by Regenerate, whatever the
// options (budget windows, probes, examples, duplicate ids).
func TestRegenerateMatchesGenerate(t *testing.T) {
	t.Parallel()
	schemas := map[string]string{
		"create_item":   createItem,
		"search_issues": searchIssues,
		"odd_names": `{"type":"object","required":["a/b","a~b","a","mcp_fuzz_unexpected"],"properties":{
			"a/b":{"type":"string"},"a~b":{"type":"string"},"a":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]},"":{"type":"string"},
			"mcp_fuzz_unexpected":{"type":"string"}}}`,
		"pattern": `{"type":"object","required":["code","n"],"properties":{"code":{"type":"string","pattern":"^[a-z]{8}$"},"n":{"type":"integer","maximum":3}}}`,
		"anyOf":   `{"type":"object","required":["v"],"properties":{"v":{"oneOf":[{"type":"integer","minimum":10},{"type":"string"}]}}}`,
	}
	optss := []Options{{}, {Budget: 40}, {Budget: 7, Seed: 5}, {Aggressive: true, Seed: 3}, {Budget: 12, Aggressive: true, Seed: 9}}
	for name, raw := range schemas {
		s := mustCompile(t, raw)
		for _, opts := range optss {
			p := Generate(name, s, opts)
			for _, c := range p.Cases {
				got, ok := Regenerate(name, s, opts, c.ID)
				if !ok {
					t.Errorf("%s %+v: %s not regenerated", name, opts, c.ID)
					continue
				}
				if !bytes.Equal(got.Arguments, c.Arguments) || !reflect.DeepEqual(got, c) {
					t.Errorf("%s %+v: %s differs:\n%.200s\n%.200s", name, opts, c.ID, got.Arguments, c.Arguments)
				}
			}
		}
	}
	ex := map[string]any{"name": "from-user", "owner": map[string]any{"id": 7}}
	s := mustCompile(t, createItem)
	for _, c := range Generate("c", s, Options{Example: ex, Budget: 20}).Cases {
		if got, ok := Regenerate("c", s, Options{Example: ex, Budget: 20}, c.ID); !ok || !reflect.DeepEqual(got, c) {
			t.Errorf("with an example: %s differs", c.ID)
		}
	}
}

func TestRegenerateUnknownOrDroppedCase(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, createItem)
	full := Generate("c", s, Options{})
	small := Generate("c", s, Options{Budget: 5})
	for _, c := range full.Cases {
		if !hasCase(small, c.ID) {
			if _, ok := Regenerate("c", s, Options{Budget: 5}, c.ID); ok {
				t.Errorf("%s regenerated although the budget drops it", c.ID)
			}
		}
	}
	for _, id := range []string{"", "c/nope", "other/valid", "c/wrong_type/name#2"} {
		if _, ok := Regenerate("c", s, Options{}, id); ok {
			t.Errorf("%q regenerated", id)
		}
	}
	big := mustCompile(t, `{"type":"object","required":["a","b"],"properties":{"a":{"type":"string","minLength":600000},"b":{"type":"string","minLength":1,"maxLength":600000}}}`)
	if _, ok := Regenerate("t", big, Options{}, "t/out_of_range/b#maxLength"); ok {
		t.Error("a case over the argument cap was regenerated")
	}
}

// Regenerate builds only the case asked for: far less than a whole plan.
func TestRegenerateBuildsOneCase(t *testing.T) {
	s := mustCompile(t, searchIssues)
	whole := allocated(func() { Generate("s", s, Options{Budget: 40}) })
	one := allocated(func() { Regenerate("s", s, Options{Budget: 40}, "s/missing_required/owner") })
	t.Logf("Generate %d KiB, Regenerate %d KiB", whole>>10, one>>10)
	if one*3 > whole {
		t.Errorf("Regenerate allocated %d KiB, Generate %d KiB", one>>10, whole>>10)
	}
}
