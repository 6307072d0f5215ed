package casegen

import (
	"encoding/json"
	"regexp"
	"testing"
	"unicode/utf8"
)

// The valid call honours each keyword: it validates with the real validator
// and, where the schema names a value (const, default, enum, examples), it is
// that value.
func TestValidCallHonoursKeywords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prop   string // schema of property "p" (required)
		extra  string // more root keywords, e.g. "$defs"
		want   string // expected JSON of "p", "" to only require validity
		check  func(t *testing.T, v any)
		schema string // full schema instead of prop/extra
	}{
		{name: "string", prop: `{"type":"string"}`, want: `"test"`},
		{name: "integer", prop: `{"type":"integer"}`, want: `1`},
		{name: "number", prop: `{"type":"number"}`, want: `1`},
		{name: "boolean", prop: `{"type":"boolean"}`, want: `false`},
		{name: "null", prop: `{"type":"null"}`, want: `null`},
		{name: "type array picks first non-null", prop: `{"type":["null","integer","string"]}`, want: `1`},
		{name: "no type infers from keywords", prop: `{"minimum":5}`, want: `5`},
		{name: "enum", prop: `{"type":"string","enum":["red","green"]}`, want: `"red"`},
		{name: "enum skips wrong-typed member", prop: `{"type":"integer","enum":["x",3]}`, want: `3`},
		{name: "const", prop: `{"const":"fixed"}`, want: `"fixed"`},
		{name: "const object", prop: `{"const":{"a":[1,2]}}`, want: `{"a":[1,2]}`},
		{name: "default", prop: `{"type":"integer","default":25}`, want: `25`},
		{name: "default outside enum ignored", prop: `{"type":"string","enum":["a","b"],"default":"z"}`, want: `"a"`},
		{name: "default of wrong type ignored", prop: `{"type":"integer","default":"10","minimum":3}`, want: `3`},
		{name: "examples", prop: `{"type":"string","examples":["rust","go"]}`, want: `"rust"`},
		{name: "format date", prop: `{"type":"string","format":"date"}`},
		{name: "format date-time", prop: `{"type":"string","format":"date-time"}`},
		{name: "format time", prop: `{"type":"string","format":"time"}`},
		{name: "format email", prop: `{"type":"string","format":"email"}`, want: `"user@example.com"`},
		{name: "format uri", prop: `{"type":"string","format":"uri"}`, want: `"https://example.com"`},
		{name: "format uuid", prop: `{"type":"string","format":"uuid"}`},
		{name: "format hostname", prop: `{"type":"string","format":"hostname"}`},
		{name: "format ipv4", prop: `{"type":"string","format":"ipv4"}`},
		{name: "format ipv6", prop: `{"type":"string","format":"ipv6"}`},
		{name: "pattern", prop: `{"type":"string","pattern":"^[A-Z]{3}-[0-9]{4}$"}`, check: matches(`^[A-Z]{3}-[0-9]{4}$`)},
		{name: "pattern with alternation and classes", prop: `{"type":"string","pattern":"^(feat|fix)\\([a-z]+\\): \\w{2,}$"}`, check: matches(`^(feat|fix)\([a-z]+\): \w{2,}$`)},
		{name: "pattern with negated class", prop: `{"type":"string","pattern":"^[^/]+\\.md$"}`, check: matches(`^[^/]+\.md$`)},
		{name: "pattern of non-ASCII class", prop: `{"type":"string","pattern":"^[^\\x00-\\x7f]{2}$"}`, check: matches(`^[^\x00-\x7f]{2}$`)},
		{name: "pattern and lengths", prop: `{"type":"string","pattern":"^[a-z]+$","minLength":10,"maxLength":12}`, check: matches(`^[a-z]{10,12}$`)},
		{name: "unanchored pattern padded", prop: `{"type":"string","pattern":"ab","minLength":8}`, check: matches(`ab`)},
		{name: "minLength", prop: `{"type":"string","minLength":10}`, check: runes(10, 10)},
		{name: "maxLength", prop: `{"type":"string","maxLength":2}`, check: runes(0, 2)},
		{name: "maxLength zero", prop: `{"type":"string","maxLength":0}`, want: `""`},
		{name: "minimum", prop: `{"type":"integer","minimum":10}`, want: `10`},
		{name: "maximum", prop: `{"type":"integer","maximum":-5}`, want: `-5`},
		{name: "exclusive numeric", prop: `{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":3}`, want: `2`},
		{name: "exclusive number", prop: `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, want: `0.5`},
		{name: "multipleOf", prop: `{"type":"integer","minimum":7,"multipleOf":5}`, want: `10`},
		{name: "multipleOf decimal", prop: `{"type":"number","minimum":1.05,"multipleOf":0.1}`, want: `1.1`},
		{name: "multipleOf with max", prop: `{"type":"number","maximum":-0.5,"multipleOf":0.2}`, want: `-0.6`},
		{name: "draft-04 boolean exclusive", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":["p"],"properties":{"p":{"type":"integer","minimum":5,"exclusiveMinimum":true,"maximum":7,"exclusiveMaximum":true}}}`, want: `6`},
		{name: "array", prop: `{"type":"array","items":{"type":"integer"}}`, want: `[1]`},
		{name: "minItems uniqueItems", prop: `{"type":"array","items":{"type":"string"},"minItems":3,"uniqueItems":true}`, want: `["test","test1","test2"]`},
		{name: "unique enum items", prop: `{"type":"array","items":{"enum":["a","b","c"]},"minItems":2,"uniqueItems":true}`, want: `["a","b"]`},
		{name: "maxItems zero", prop: `{"type":"array","maxItems":0}`, want: `[]`},
		{name: "tuple draft-07", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["p"],"properties":{"p":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"minItems":2}}}`, want: `["test",1]`},
		{name: "prefixItems", prop: `{"type":"array","prefixItems":[{"type":"boolean"},{"type":"string","format":"email"}],"minItems":2}`, want: `[false,"user@example.com"]`},
		{name: "nested object", prop: `{"type":"object","properties":{"id":{"type":"integer"},"note":{"type":"string"}},"required":["id"]}`, want: `{"id":1}`},
		{name: "optional with default is sent", prop: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","default":3}}}`, want: `{"b":3}`},
		{name: "minProperties", prop: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"minProperties":2}`, want: `{"a":"test","b":"test"}`},
		{name: "minProperties with additional", prop: `{"type":"object","additionalProperties":{"type":"integer"},"minProperties":1}`, want: `{"key1":1}`},
		{name: "required without property schema", prop: `{"type":"object","required":["x"]}`, want: `{"x":"test"}`},
		{name: "patternProperties", prop: `{"type":"object","patternProperties":{"^n_":{"type":"integer"}},"required":["n_a"]}`, want: `{"n_a":1}`},
		{name: "ref $defs", prop: `{"$ref":"#/$defs/color"}`, extra: `"$defs":{"color":{"type":"string","enum":["blue"]}}`, want: `"blue"`},
		{name: "ref definitions", prop: `{"$ref":"#/definitions/n"}`, extra: `"definitions":{"n":{"type":"integer","minimum":4}}`, want: `4`},
		{name: "ref json pointer", prop: `{"$ref":"#/properties/q"}`, extra: `"properties":{"q":{"type":"integer","const":9}}`, want: `9`},
		{name: "ref escaped pointer", prop: `{"$ref":"#/$defs/a~1b%20c"}`, extra: `"$defs":{"a/b c":{"const":true}}`, want: `true`},
		{name: "ref anchor", prop: `{"$ref":"#thing"}`, extra: `"$defs":{"x":{"$anchor":"thing","type":"integer","minimum":8}}`, want: `8`},
		{name: "ref chain", prop: `{"$ref":"#/$defs/a"}`, extra: `"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"string","format":"ipv4"}}`},
		{name: "allOf merged", prop: `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":2}},"required":["b"]}]}`, want: `{"a":"test","b":2}`},
		{name: "allOf bounds", prop: `{"allOf":[{"type":"integer","minimum":3},{"minimum":6},{"maximum":9}]}`, want: `6`},
		{name: "anyOf first satisfiable", prop: `{"anyOf":[{"type":"string","minLength":5,"maxLength":2},{"type":"integer","minimum":42}]}`, want: `42`},
		{name: "anyOf first branch", prop: `{"anyOf":[{"type":"string","format":"date"},{"type":"integer"}]}`, want: `"2024-01-15"`},
		{name: "oneOf exclusive", prop: `{"oneOf":[{"type":"integer","minimum":10},{"type":"integer","maximum":5}]}`, want: `10`},
		{name: "oneOf objects", prop: `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k","x"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]}]}`},
		{name: "nullable anyOf", prop: `{"anyOf":[{"type":"null"},{"type":"string"}]}`, want: `null`},
		{name: "additionalProperties false", schema: `{"type":"object","properties":{"p":{"type":"string"}},"required":["p"],"additionalProperties":false}`, want: `"test"`},
		{name: "url hint", schema: `{"type":"object","properties":{"p":{"type":"string"},"homepage_url":{"type":"string"}},"required":["p","homepage_url"]}`, want: `"test"`},
		{name: "2020-12 schema", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"p":{"type":"string","format":"email"}},"required":["p"]}`, want: `"user@example.com"`},
		{name: "draft-07 schema without hash", schema: `{"$schema":"http://json-schema.org/draft-07/schema","type":"object","properties":{"p":{"type":"string","format":"uuid"}},"required":["p"]}`},
		{name: "2019-09 schema", schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"p":{"type":"string","format":"ipv6"}},"required":["p"]}`},
		{name: "draft-07 schema", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"type":"string","format":"date-time"}},"required":["p"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.schema
			if raw == "" {
				extra := ""
				if tt.extra != "" {
					extra = "," + tt.extra
				}
				raw = `{"type":"object","required":["p"],"properties":{"p":` + tt.prop + `}` + extra + `}`
				if tt.name == "ref json pointer" {
					raw = `{"type":"object","required":["p"],"properties":{"p":` + tt.prop + `,"q":{"type":"integer","const":9}}}`
				}
			}
			s := mustCompile(t, raw)
			p := Generate("tool", s, Options{})
			valid := p.Cases[0]
			if valid.ID != "tool/valid" || valid.Kind != Valid || valid.Pointer != "" {
				t.Fatalf("first case is %+v", valid)
			}
			if p.GeneratorGap != "" || valid.Forbidden {
				t.Fatalf("generator gap %q for %s", p.GeneratorGap, valid.Arguments)
			}
			if err := s.Validate(valid.Arguments); err != nil {
				t.Fatalf("valid arguments %s do not validate: %v", valid.Arguments, err)
			}
			args := decodeArgs(t, valid.Arguments).(map[string]any)
			got, ok := args["p"]
			if !ok {
				t.Fatalf("required property p missing from %s", valid.Arguments)
			}
			if tt.want != "" && string(encode(got)) != tt.want {
				t.Errorf("p = %s, want %s", encode(got), tt.want)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func matches(pattern string) func(*testing.T, any) {
	re := regexp.MustCompile(pattern)
	return func(t *testing.T, v any) {
		if s, ok := v.(string); !ok || !re.MatchString(s) {
			t.Errorf("%v does not match %s", v, pattern)
		}
	}
}

func runes(lo, hi int) func(*testing.T, any) {
	return func(t *testing.T, v any) {
		s, _ := v.(string)
		if n := utf8.RuneCountInString(s); n < lo || n > hi {
			t.Errorf("%q has %d runes, want %d..%d", s, n, lo, hi)
		}
	}
}

func TestHint(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"homepage_url": "https://example.com", "URL": "https://example.com", "filePath": "README.md", "file": "README.md",
		"profile": "", "valid": "", "ownerID": "1", "repo_id": "1", "user-email": "user@example.com", "outputDir": ".",
		"lang": "en", "start_date": "2024-01-15", "query": "", "": "",
	} {
		if got := hint(name); got != want {
			t.Errorf("hint(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestValidCallNameHints(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["homepage_url","email","file_path","owner_id","lang","notes"],"properties":{
		"homepage_url":{"type":"string"},"email":{"type":"string"},"file_path":{"type":"string"},
		"owner_id":{"type":"string"},"lang":{"type":"string"},"notes":{"type":"string"}}}`)
	got := string(Generate("t", s, Options{}).Cases[0].Arguments)
	want := `{"email":"user@example.com","file_path":"README.md","homepage_url":"https://example.com","lang":"en","notes":"test","owner_id":"1"}`
	if got != want {
		t.Errorf("valid = %s\nwant    %s", got, want)
	}
}

// Optional properties are sent only when the schema names their value.
func TestValidCallOptionalProperties(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","properties":{"plain":{"type":"string"},"withDefault":{"type":"boolean","default":true},
		"withEnum":{"enum":["x"]},"withConst":{"const":1},"withExamples":{"type":"string","examples":["e"]}}}`)
	got := string(Generate("t", s, Options{}).Cases[0].Arguments)
	if want := `{"withConst":1,"withDefault":true,"withEnum":"x","withExamples":"e"}`; got != want {
		t.Errorf("valid = %s, want %s", got, want)
	}
}

func TestGeneratorGapReported(t *testing.T) {
	t.Parallel()
	// contradictory: no string is both at least 5 and at most 2 characters long
	s := mustCompile(t, `{"type":"object","required":["p"],"properties":{"p":{"type":"string","minLength":5,"maxLength":2}}}`)
	p := Generate("t", s, Options{})
	if p.GeneratorGap == "" || !p.Cases[0].Forbidden {
		t.Fatalf("no generator gap for an unsatisfiable schema: %+v", p.Cases[0])
	}
	if want := "at '/p'"; len(p.GeneratorGap) < len(want) || p.GeneratorGap[:len(want)] != want {
		t.Errorf("gap %q does not start with %q", p.GeneratorGap, want)
	}
}

func TestExampleIsTheValidCall(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["owner","repo"],"properties":{"owner":{"type":"string"},"repo":{"type":"string"},"n":{"type":"integer"}}}`)
	ex := map[string]any{"owner": "octocat", "repo": "hello-world", "n": 3}
	p := Generate("t", s, Options{Example: ex})
	if got := string(p.Cases[0].Arguments); got != `{"n":3,"owner":"octocat","repo":"hello-world"}` {
		t.Errorf("valid = %s", got)
	}
	if c := caseByID(t, p, "t/missing_required/owner"); string(c.Arguments) != `{"n":3,"repo":"hello-world"}` {
		t.Errorf("mutation not derived from the example: %s", c.Arguments)
	}
	if ex["owner"] != "octocat" || len(ex) != 3 {
		t.Errorf("example was modified: %v", ex)
	}
	bad := Generate("t", s, Options{Example: map[string]any{"owner": 1}})
	if bad.GeneratorGap == "" {
		t.Error("an example that does not validate gave no generator gap")
	}
	odd := Generate("t", s, Options{Example: map[string]any{"f": func() {}}})
	if odd.GeneratorGap == "" || odd.Cases[0].Arguments[0] != '{' {
		t.Errorf("unencodable example: gap %q, valid %s", odd.GeneratorGap, odd.Cases[0].Arguments)
	}
}

func TestLargeIntegersSurvive(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["id"],"properties":{"id":{"type":"integer","const":12345678901234567890123}}}`)
	p := Generate("t", s, Options{})
	if got := string(p.Cases[0].Arguments); got != `{"id":12345678901234567890123}` {
		t.Errorf("valid = %s", got)
	}
	if err := s.Validate(json.RawMessage(`{"id":12345678901234567890124}`)); err == nil {
		t.Error("Validate lost integer precision")
	}
}
