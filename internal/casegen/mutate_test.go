package casegen

import (
	"encoding/json"
	"strings"
	"testing"
)

const createItem = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["name","owner"],"additionalProperties":false,
 "properties":{
  "name":{"type":"string","minLength":1,"maxLength":20},
  "owner":{"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":1},"team":{"type":"string"}}},
  "tags":{"type":"array","items":{"type":"object","required":["label"],"properties":{"label":{"type":"string","pattern":"^[a-z]+$"}},"additionalProperties":false},"maxItems":3},
  "mode":{"type":"string","enum":["fast","slow"]},
  "kind":{"const":"item"},
  "nickname":{"type":["string","null"]},
  "score":{"type":"number","exclusiveMinimum":0,"maximum":1,"multipleOf":0.25},
  "when":{"type":"string","format":"date"},
  "flag":{"type":"boolean"}}}`

// Each mutation kind yields the expected id, pointer, nesting and Forbidden
// verdict (the latter from the real validator).
func TestMutationKinds(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, createItem)
	p := Generate("create_item", s, Options{})
	checkPlanShape(t, p)
	tests := []struct {
		id        string
		pointer   string
		kind      Kind
		nested    bool
		forbidden bool
		args      string // substring expected in the arguments, "" to skip
	}{
		{"create_item/missing_required/name", "/name", MissingRequired, false, true, ""},
		{"create_item/missing_required/owner", "/owner", MissingRequired, false, true, ""},
		{"create_item/missing_required/owner/id", "/owner/id", MissingRequired, true, true, `"owner":{}`},
		{"create_item/missing_required/tags/0/label", "/tags/0/label", MissingRequired, true, true, `"tags":[{}]`},
		{"create_item/wrong_type/name", "/name", WrongType, false, true, `"name":123`},
		{"create_item/wrong_type/owner/id", "/owner/id", WrongType, true, true, `"id":"not-a-number"`},
		{"create_item/wrong_type/flag", "/flag", WrongType, false, true, `"flag":"true"`},
		{"create_item/wrong_type/owner", "/owner", WrongType, false, true, `"owner":"str"`},
		{"create_item/wrong_type/tags", "/tags", WrongType, false, true, `"tags":"str"`},
		{"create_item/wrong_type/nickname", "/nickname", WrongType, false, true, `"nickname":123`},
		{"create_item/null/name", "/name", Null, false, true, `"name":null`},
		{"create_item/null/nickname", "/nickname", Null, false, false, `"nickname":null`},
		{"create_item/null/tags/0", "/tags/0", Null, true, true, `"tags":[null]`},
		{"create_item/out_of_enum/mode", "/mode", OutOfEnum, false, true, `"mode":"mcp_fuzz_not_in_enum"`},
		{"create_item/out_of_enum/kind", "/kind", OutOfEnum, false, true, `"kind":"mcp_fuzz_not_in_enum"`},
		{"create_item/out_of_range/name#minLength", "/name", OutOfRange, false, true, `"name":""`},
		{"create_item/out_of_range/name#maxLength", "/name", OutOfRange, false, true, ""},
		{"create_item/out_of_range/owner/id#min", "/owner/id", OutOfRange, true, true, `"id":0`},
		{"create_item/out_of_range/score#min", "/score", OutOfRange, false, true, `"score":0`},
		{"create_item/out_of_range/score#max", "/score", OutOfRange, false, true, `"score":2`},
		{"create_item/out_of_range/score#multipleOf", "/score", OutOfRange, false, true, ""},
		{"create_item/out_of_range/tags/0/label#pattern", "/tags/0/label", OutOfRange, true, true, ""},
		{"create_item/out_of_range/tags#maxItems", "/tags", OutOfRange, false, true, ""},
		{"create_item/out_of_range/when#format", "/when", OutOfRange, false, true, `"when":"not-a-date"`},
		{"create_item/extra_property", "", ExtraProperty, false, true, `"mcp_fuzz_unexpected":"x"`},
		{"create_item/extra_property/owner", "/owner", ExtraProperty, true, false, `"owner":{"id":1,"mcp_fuzz_unexpected":"x"}`},
		{"create_item/extra_property/tags/0", "/tags/0", ExtraProperty, true, true, ""},
		{"create_item/oversize/name#string", "/name", Oversize, false, true, ""},
		{"create_item/oversize/score#1e308", "/score", Oversize, false, true, `"score":1e308`},
		{"create_item/oversize/score#min_int64", "/score", Oversize, false, true, `"score":-9223372036854775808`},
		{"create_item/oversize/tags#array", "/tags", Oversize, false, true, ""},
		{"create_item/structural#array", "", Structural, false, true, ""},
		{"create_item/structural#string", "", Structural, false, true, ""},
		{"create_item/structural#null", "", Structural, false, true, ""},
		{"create_item/structural#empty_object", "", Structural, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c := caseByID(t, p, tt.id)
			if c.Pointer != tt.pointer || c.Kind != tt.kind || c.Nested != tt.nested || c.Forbidden != tt.forbidden || c.Tool != "create_item" {
				t.Errorf("got pointer %q kind %s nested %v forbidden %v; want %q %s %v %v\nargs %.300s",
					c.Pointer, c.Kind, c.Nested, c.Forbidden, tt.pointer, tt.kind, tt.nested, tt.forbidden, c.Arguments)
			}
			if tt.args != "" && !strings.Contains(string(c.Arguments), tt.args) {
				t.Errorf("arguments %.300s do not contain %s", c.Arguments, tt.args)
			}
			if c.Description == "" || strings.Contains(c.Description, "\n") {
				t.Errorf("description %q is not one line", c.Description)
			}
			if c.Kind != Structural {
				if got := s.Validate(c.Arguments) != nil; got != c.Forbidden {
					t.Errorf("Forbidden %v disagrees with Validate", c.Forbidden)
				}
			}
		})
	}
	// the mutated value is the only change: everything else is the valid call
	valid := decodeArgs(t, p.Cases[0].Arguments).(map[string]any)
	c := decodeArgs(t, caseByID(t, p, "create_item/wrong_type/name").Arguments).(map[string]any)
	delete(valid, "name")
	delete(c, "name")
	if string(encode(valid)) != string(encode(c)) {
		t.Errorf("wrong_type/name changed more than name:\n%s\n%s", encode(valid), encode(c))
	}
}

func TestOversizeSizes(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["q","items","n"],"properties":{"q":{"type":"string"},"items":{"type":"array","items":{"type":"integer"}},"n":{"type":"integer"},"deep":{"type":"object","properties":{"s":{"type":"string"}}}}}`)
	for _, tt := range []struct {
		aggressive   bool
		chars, items int
		cap          int
	}{{false, 64 << 10, 10000, MaxArgumentBytes}, {true, 1 << 20, 100000, MaxArgumentBytesAggressive}} {
		p := Generate("t", s, Options{Aggressive: tt.aggressive})
		sc, ac := caseByID(t, p, "t/oversize/q#string"), caseByID(t, p, "t/oversize/items#array")
		str := decodeArgs(t, sc.Arguments).(map[string]any)["q"].(string)
		if len(str) != tt.chars {
			t.Errorf("aggressive %v: oversize string is %d bytes", tt.aggressive, len(str))
		}
		arr := decodeArgs(t, ac.Arguments).(map[string]any)["items"].([]any)
		if len(arr) != tt.items {
			t.Errorf("aggressive %v: oversize array has %d items", tt.aggressive, len(arr))
		}
		for _, c := range []Case{sc, ac} {
			if len(c.Arguments) > tt.cap {
				t.Errorf("aggressive %v: %s takes %d bytes", tt.aggressive, c.ID, len(c.Arguments))
			}
		}
	}
	p := Generate("t", s, Options{})
	if c := caseByID(t, p, "t/oversize/q#string"); c.Description != `set "q" to a 64 KiB string` {
		t.Errorf("description %q", c.Description)
	}
	for _, c := range p.Cases {
		if c.Kind == Oversize && (c.Nested || strings.Count(c.Pointer, "/") != 1) {
			t.Errorf("oversize not at the top level: %s", c.ID)
		}
		if c.Kind == Oversize && c.Forbidden {
			t.Errorf("%s forbidden although no bound forbids it", c.ID)
		}
	}
	if n := strings.Count(ids(p), "/oversize/"); n != 4 { // string, array, 1e308, min_int64
		t.Errorf("%d oversize cases, want 4:\n%s", n, ids(p))
	}
}

func TestExtraPropertyForbiddenOnlyWhenClosed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addl      string
		forbidden bool
	}{{`false`, true}, {`true`, false}, {`{"type":"string"}`, false}, {`{"type":"integer"}`, true}} {
		s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":`+tt.addl+`}`)
		c := caseByID(t, Generate("t", s, Options{}), "t/extra_property")
		if c.Forbidden != tt.forbidden {
			t.Errorf("additionalProperties %s: Forbidden = %v", tt.addl, c.Forbidden)
		}
	}
}

func TestNullNotForbiddenWhenNullable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		prop      string
		forbidden bool
	}{
		{`{"type":"string"}`, true},
		{`{"type":["string","null"]}`, false},
		{`{"anyOf":[{"type":"string"},{"type":"null"}]}`, false},
		{`{"enum":["a",null]}`, false},
		{`{}`, false},
	} {
		s := mustCompile(t, `{"type":"object","required":["p"],"properties":{"p":`+tt.prop+`}}`)
		c := caseByID(t, Generate("t", s, Options{}), "t/null/p")
		if c.Forbidden != tt.forbidden {
			t.Errorf("%s: null Forbidden = %v", tt.prop, c.Forbidden)
		}
	}
}

func TestWrongTypeAvoidsAllowedTypes(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["p"],"properties":{"p":{"type":["string","integer"]}}}`)
	c := caseByID(t, Generate("t", s, Options{}), "t/wrong_type/p")
	if !c.Forbidden || strings.Contains(string(c.Arguments), "123") {
		t.Errorf("wrong_type picked an allowed type: %s", c.Arguments)
	}
}

func TestAbsentOptionalPropertiesAreAddedToMutate(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{"opt":{"type":"object","properties":{"x":{"type":"integer","maximum":5}},"required":["x"]}}}`)
	p := Generate("t", s, Options{})
	if got := string(p.Cases[0].Arguments); got != `{}` {
		t.Fatalf("valid = %s", got)
	}
	c := caseByID(t, p, "t/out_of_range/opt/x#max")
	if string(c.Arguments) != `{"opt":{"x":6}}` || !c.Forbidden || !c.Nested {
		t.Errorf("got %+v", c)
	}
	if mr := caseByID(t, p, "t/missing_required/opt/x"); string(mr.Arguments) != `{"opt":{}}` {
		t.Errorf("missing_required/opt/x = %s", mr.Arguments)
	}
	if hasCase(p, "t/missing_required/opt") {
		t.Error("optional property reported as missing_required")
	}
}

func TestEmptyArrayGetsAnItemBeforeMutation(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["a"],"properties":{"a":{"type":"array","items":{"type":"string"},"maxItems":4}}}`)
	ex := map[string]any{"a": []any{}}
	c := caseByID(t, Generate("t", s, Options{Example: ex}), "t/wrong_type/a/0")
	if string(c.Arguments) != `{"a":[123]}` {
		t.Errorf("got %s", c.Arguments)
	}
	s0 := mustCompile(t, `{"type":"object","required":["a"],"properties":{"a":{"type":"array","items":{"type":"string"},"maxItems":0}}}`)
	if p := Generate("t", s0, Options{}); hasCase(p, "t/wrong_type/a/0") {
		t.Error("item mutated although maxItems is 0")
	}
}

func TestAggressiveProbes(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["path","n"],"properties":{"path":{"type":"string"},"n":{"type":"integer"}}}`)
	if p := Generate("t", s, Options{}); strings.Contains(ids(p), "/probe/") {
		t.Error("probes without Aggressive")
	}
	p := Generate("t", s, Options{Aggressive: true})
	var probes []Case
	for _, c := range p.Cases {
		if c.Kind == Probe {
			probes = append(probes, c)
		}
	}
	if len(probes) != probesPerString {
		t.Fatalf("%d probes, want %d (only the string property):\n%s", len(probes), probesPerString, ids(p))
	}
	for _, c := range probes {
		if c.Pointer != "/path" || !strings.HasPrefix(c.ID, "t/probe/path#") || c.Forbidden {
			t.Errorf("probe %+v", c)
		}
	}
	other := Generate("t", s, Options{Aggressive: true, Seed: 2})
	if caseIDs(other, Probe) == caseIDs(p, Probe) {
		t.Error("the seed does not change the probe selection")
	}
}

func caseIDs(p Plan, k Kind) string {
	var out []string
	for _, c := range p.Cases {
		if c.Kind == k {
			out = append(out, c.ID)
		}
	}
	return strings.Join(out, ",")
}

func TestIDsAreUniqueWithOddNames(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["a/b","a~b","a","mcp_fuzz_unexpected"],"properties":{
		"a/b":{"type":"string"},"a~b":{"type":"string"},"a":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]},"":{"type":"string"},
		"mcp_fuzz_unexpected":{"type":"string"}}}`)
	p := Generate("t", s, Options{})
	checkPlanShape(t, p)
	for _, id := range []string{"t/missing_required/a~1b", "t/missing_required/a~0b", "t/missing_required/a/b", "t/wrong_type/"} {
		caseByID(t, p, id)
	}
	if hasCase(p, "t/extra_property") {
		t.Error("extra_property added a key that the arguments already have")
	}
}

func TestStructuralEmptyObjectOnlyWhenRequired(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{"a":{"type":"string"}}}`)
	p := Generate("t", s, Options{})
	if hasCase(p, "t/structural#empty_object") {
		t.Error("{} structural case without required properties")
	}
	for _, v := range []string{"array", "string", "null"} {
		c := caseByID(t, p, "t/structural#"+v)
		if c.Arguments[0] == '{' || !c.Forbidden {
			t.Errorf("%s: %s", c.ID, c.Arguments)
		}
	}
	var args any
	if err := json.Unmarshal(caseByID(t, p, "t/structural#null").Arguments, &args); err != nil || args != nil {
		t.Errorf("structural#null is %v", args)
	}
}

func TestAnyOfBranchConstraintsAreMutated(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["v"],"properties":{"v":{"anyOf":[{"type":"integer","maximum":3},{"type":"string"}]}}}`)
	p := Generate("t", s, Options{})
	c := caseByID(t, p, "t/out_of_range/v#max")
	if string(c.Arguments) != `{"v":4}` || !c.Forbidden {
		t.Errorf("got %s forbidden=%v", c.Arguments, c.Forbidden)
	}
}

// format is asserted whatever the draft (2019-09 and 2020-12 only annotate it
// by default), so a bad format counts as forbidden.
func TestFormatAssertedInEveryDraft(t *testing.T) {
	t.Parallel()
	for _, meta := range []string{"", `"$schema":"http://json-schema.org/draft-04/schema#",`, `"$schema":"http://json-schema.org/draft-07/schema#",`,
		`"$schema":"https://json-schema.org/draft/2019-09/schema",`, `"$schema":"https://json-schema.org/draft/2020-12/schema",`} {
		s := mustCompile(t, `{`+meta+`"type":"object","required":["p"],"properties":{"p":{"type":"string","format":"email"}}}`)
		p := Generate("t", s, Options{})
		if p.GeneratorGap != "" {
			t.Errorf("%s: gap %s", meta, p.GeneratorGap)
		}
		if c := caseByID(t, p, "t/out_of_range/p#format"); !c.Forbidden {
			t.Errorf("%s: bad email not forbidden", meta)
		}
	}
}
