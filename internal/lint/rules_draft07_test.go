package lint

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// draft07Findings runs Check on a tool with the given schemas (no
// outputSchema when output is "") and returns the pointers of its
// draft07_keyword findings, checking each finding's form.
func draft07Findings(t *testing.T, input, output string) []string {
	t.Helper()
	tl := tool(func(tl *Tool) {
		tl.InputSchema = json.RawMessage(input)
		if output != "" {
			tl.OutputSchema = json.RawMessage(output)
		}
	})
	var ptrs []string
	for _, l := range Check(cleanServer, []Tool{tl}) {
		if l.Code != "draft07_keyword" {
			continue
		}
		if l.Severity != SeverityWarning || l.Message == "" || l.Hint == "" || l.Tool != tl.Name {
			t.Errorf("malformed finding %+v", l)
		}
		ptrs = append(ptrs, l.Pointer)
	}
	return ptrs
}

func TestDraft07Keyword(t *testing.T) {
	const draft07 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	cases := []struct {
		name   string
		input  string
		output string
		want   []string // pointers of the draft07_keyword findings, in order
	}{
		{
			name:  "additionalItems nested under properties",
			input: `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}],"additionalItems":false}}}`,
			want:  []string{"/inputSchema/properties/p/additionalItems"},
		},
		{
			name:  "dependencies at the root",
			input: `{"type":"object","properties":{"a":{},"b":{}},"dependencies":{"a":["b"]}}`,
			want:  []string{"/inputSchema/dependencies"},
		},
		{
			name:  "dependencies under anyOf",
			input: `{"type":"object","anyOf":[{"type":"object"},{"properties":{"x":{"dependencies":{"a":{"required":["b"]}}}}}]}`,
			want:  []string{"/inputSchema/anyOf/1/properties/x/dependencies"},
		},
		{
			name:  "keywords inside a dependency schema are walked",
			input: `{"type":"object","dependencies":{"a":{"properties":{"l":{"additionalItems":{}}}}}}`,
			want:  []string{"/inputSchema/dependencies", "/inputSchema/dependencies/a/properties/l/additionalItems"},
		},
		{
			name:  "2019-09 recursive keywords",
			input: `{"type":"object","$recursiveAnchor":true,"properties":{"c":{"$recursiveRef":"#"}}}`,
			want:  []string{"/inputSchema/$recursiveAnchor", "/inputSchema/properties/c/$recursiveRef"},
		},
		{
			name:  "every applicator is walked",
			input: `{"type":"object","allOf":[{"additionalItems":1}],"oneOf":[{"not":{"additionalItems":2}}],"if":{"additionalItems":3},"then":{"additionalItems":4},"else":{"additionalItems":5}}`,
			want: []string{"/inputSchema/allOf/0/additionalItems", "/inputSchema/oneOf/0/not/additionalItems",
				"/inputSchema/if/additionalItems", "/inputSchema/then/additionalItems", "/inputSchema/else/additionalItems"},
		},
		{
			name:  "defs, definitions, patternProperties, items, prefixItems",
			input: `{"type":"object","$defs":{"d":{"dependencies":{}}},"definitions":{"e":{"dependencies":{}}},"patternProperties":{"^x":{"dependencies":{}}},"properties":{"l":{"items":{"prefixItems":[{"dependencies":{}}]}}}}`,
			want: []string{"/inputSchema/properties/l/items/prefixItems/0/dependencies",
				"/inputSchema/patternProperties/^x/dependencies", "/inputSchema/$defs/d/dependencies", "/inputSchema/definitions/e/dependencies"},
		},
		{
			name:  "dependentSchemas, contains, additionalProperties",
			input: `{"type":"object","dependentSchemas":{"a":{"dependencies":{}}},"additionalProperties":{"contains":{"$recursiveRef":"#"}}}`,
			want:  []string{"/inputSchema/additionalProperties/contains/$recursiveRef", "/inputSchema/dependentSchemas/a/dependencies"},
		},
		{
			name:   "outputSchema too",
			input:  `{"type":"object"}`,
			output: `{"type":"object","properties":{"r":{"dependencies":{"a":["b"]}}}}`,
			want:   []string{"/outputSchema/properties/r/dependencies"},
		},
		{
			name:  "explicit draft-07 $schema: no finding",
			input: `{` + draft07 + `"type":"object","properties":{"p":{"type":"array","items":[{"type":"string"}],"additionalItems":false}},"dependencies":{"p":["q"]}}`,
		},
		{
			name:  "explicit draft-07 $schema over https without the fragment: no finding",
			input: `{"$schema":"https://json-schema.org/draft-07/schema","type":"object","dependencies":{"p":["q"]}}`,
		},
		{
			name:  "explicit 2019-09: only dependencies",
			input: `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","$recursiveAnchor":true,"properties":{"t":{"items":[{}],"additionalItems":false}},"dependencies":{"a":["b"]}}`,
			want:  []string{"/inputSchema/dependencies"},
		},
		{
			name:  "explicit 2020-12 is flagged like no $schema",
			input: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","dependencies":{"a":["b"]}}`,
			want:  []string{"/inputSchema/dependencies"},
		},
		{
			name:  "an embedded draft-07 resource keeps its dialect",
			input: `{"type":"object","$defs":{"old":{"$id":"old.json","$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}},"properties":{"n":{"dependencies":{"a":["b"]}}}}`,
			want:  []string{"/inputSchema/properties/n/dependencies"},
		},
		{
			name:  "#/definitions reference: no finding",
			input: `{"type":"object","definitions":{"id":{"type":"string"}},"properties":{"id":{"$ref":"#/definitions/id"}},"required":["id"]}`,
		},
		{
			name:  "property names and data are not keywords",
			input: `{"type":"object","properties":{"dependencies":{"type":"array","items":{"type":"string"}},"additionalItems":{"type":"string","default":{"items":[1]},"enum":[{"dependencies":{}}],"examples":[{"$recursiveRef":"#"}]}}}`,
		},
		{
			name:  "2020-12 items and prefixItems: no finding",
			input: `{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}],"items":false},"u":{"type":"array","items":{"type":"string"}}}}`,
		},
		{
			// The first tuple is the compile error, which says prefixItems;
			// the second gets a warning of its own. Which is first must not
			// depend on the validator's map order (run with -count).
			name:  "tuple items: the one the compile rule reports is not repeated",
			input: `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]},"b":{"type":"array","items":[{"type":"string"}]}}}`,
			want:  []string{"/inputSchema/properties/b/items"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := draft07Findings(t, c.input, c.output)
			if len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
				t.Fatalf("draft07_keyword at %q, want %q", got, c.want)
			}
		})
	}
}

// The compile error of a tuple "items" says what 2020-12 wants instead, and
// is the only finding about that keyword.
func TestTupleItemsCompileErrorNamesPrefixItems(t *testing.T) {
	for _, at := range []string{"inputSchema", "outputSchema"} {
		schema := `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}}}`
		tl := tool(func(tl *Tool) {
			if at == "inputSchema" {
				tl.InputSchema = json.RawMessage(schema)
			} else {
				tl.OutputSchema = json.RawMessage(schema)
			}
		})
		var compile []string
		for _, l := range Check(cleanServer, []Tool{tl}) {
			switch l.Code {
			case "draft07_keyword":
				t.Errorf("%s: the compile error is reported twice: %+v", at, l)
			case "input_schema_does_not_compile", "output_schema_does_not_compile":
				compile = append(compile, l.Pointer)
				if !strings.Contains(l.Message, `"prefixItems"`) || !strings.Contains(l.Message, "2020-12") {
					t.Errorf("%s: message %q does not point at prefixItems", at, l.Message)
				}
				if !strings.Contains(l.Hint, `"prefixItems"`) || !strings.Contains(l.Hint, "draft-07") {
					t.Errorf("%s: hint %q", at, l.Hint)
				}
				if l.Severity != SeverityError {
					t.Errorf("%s: severity %s", at, l.Severity)
				}
			}
		}
		if want := []string{"/" + at + "/properties/t/items"}; !reflect.DeepEqual(compile, want) {
			t.Errorf("compile findings at %q, want %q", compile, want)
		}
	}
	// Another compile error keeps the usual wording.
	tl := tool(func(tl *Tool) { tl.InputSchema = json.RawMessage(`{"type":"object","required":"q"}`) })
	for _, l := range Check(cleanServer, []Tool{tl}) {
		if l.Code == "input_schema_does_not_compile" && strings.Contains(l.Message, "prefixItems") {
			t.Errorf("unrelated compile error mentions prefixItems: %q", l.Message)
		}
	}
}

func TestDraft07KeywordWording(t *testing.T) {
	cases := []struct {
		schema  string
		message []string
		hint    []string
	}{
		{`{"type":"object","dependencies":{"a":["b"]}}`,
			[]string{`"dependencies"`, `tool "search_issues"`, "2020-12", "ignore"}, []string{`"dependentRequired"`, "draft-07/schema#"}},
		{`{"type":"object","dependencies":{"a":{"required":["b"]}}}`,
			[]string{`"dependencies"`}, []string{`"dependentSchemas"`}},
		{`{"type":"object","properties":{"t":{"prefixItems":[{}],"additionalItems":false}}}`,
			[]string{`"additionalItems"`, "ignores it"}, []string{`"items"`, "draft-07"}},
		{`{"type":"object","$recursiveRef":"#"}`,
			[]string{`"$recursiveRef"`, "2019-09", `"$dynamicRef"`, `a schema without "$schema" is JSON Schema 2020-12`}, []string{`"$dynamicRef"`, "2019-09/schema"}},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","dependencies":{"a":["b"]}}`,
			[]string{`its "$schema" is read as draft 2020-12`}, nil},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","dependencies":{"a":["b"]}}`,
			[]string{`draft 2019-09, which dropped it`}, nil},
	}
	for _, c := range cases {
		tl := tool(func(tl *Tool) { tl.InputSchema = json.RawMessage(c.schema) })
		var found bool
		for _, l := range Check(cleanServer, []Tool{tl}) {
			if l.Code != "draft07_keyword" {
				continue
			}
			found = true
			for _, s := range c.message {
				if !strings.Contains(l.Message, s) {
					t.Errorf("%s: message %q lacks %q", c.schema, l.Message, s)
				}
			}
			for _, s := range c.hint {
				if !strings.Contains(l.Hint, s) {
					t.Errorf("%s: hint %q lacks %q", c.schema, l.Hint, s)
				}
			}
		}
		if !found {
			t.Errorf("%s: no draft07_keyword finding", c.schema)
		}
	}
}

// A thousand uses are five findings and one that counts the rest.
func TestDraft07KeywordIsCapped(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"p` + itoa(i) + `":{"type":"object","dependencies":{"a":["b"]}}`)
	}
	sb.WriteString(`}}`)
	tl := tool(func(tl *Tool) { tl.InputSchema = json.RawMessage(sb.String()) })
	var got []string
	for _, l := range Check(cleanServer, []Tool{tl}) {
		if l.Code == "draft07_keyword" {
			got = append(got, l.Message)
		}
	}
	if len(got) != maxDraft07Hits+1 {
		t.Fatalf("%d findings, want %d", len(got), maxDraft07Hits+1)
	}
	if last := got[len(got)-1]; !strings.Contains(last, "and 995 more") {
		t.Errorf("last finding %q does not count the rest", last)
	}
	// The cap is per tool, over both schemas.
	tl.OutputSchema = tl.InputSchema
	n := 0
	for _, l := range Check(cleanServer, []Tool{tl}) {
		if l.Code == "draft07_keyword" {
			n++
			if strings.HasPrefix(l.Message, "and ") && !strings.Contains(l.Message, "and 1995 more") {
				t.Errorf("summary %q, want 1995 more", l.Message)
			}
		}
	}
	if n != maxDraft07Hits+1 {
		t.Errorf("%d findings over both schemas, want %d", n, maxDraft07Hits+1)
	}
}

// A schema 10,000 levels deep (a legacy keyword on each) is walked only as
// deep as the compiler reads it, in linear time, and reported capped.
func TestDraft07KeywordDeepSchemaIsBounded(t *testing.T) {
	const levels = 10000
	deep := strings.Repeat(`{"additionalItems":false,"items":`, levels) + `{}` + strings.Repeat(`}`, levels)
	sc := scanLegacy(json.RawMessage(deep), "")
	if len(sc.Uses) != maxDraft07Hits || sc.Total == 0 || sc.Total > 200 {
		t.Errorf("scan of %d levels: %d listed, %d in all", levels, len(sc.Uses), sc.Total)
	}
	if sc.Uses[0].Pointer != "/additionalItems" || sc.Uses[1].Pointer != "/items/additionalItems" {
		t.Errorf("first uses %+v", sc.Uses[:2])
	}
	// Through Check: encoding/json takes 10,000 levels at most, so a little
	// less reaches the rule.
	const fits = 9990
	deep = `{"type":"object","properties":{"d":` + strings.Repeat(`{"additionalItems":false,"items":`, fits) + `{}` + strings.Repeat(`}`, fits) + `}}`
	if got := draft07Findings(t, deep, ""); len(got) != maxDraft07Hits+1 {
		t.Errorf("%d findings on a %d-deep schema, want %d", len(got), fits, maxDraft07Hits+1)
	}
}

// BenchmarkCheckDeepSchema lints one tool whose schema is nested 9,990
// levels deep with a legacy keyword and a description on each: every rule
// that walks a schema must stay linear in its depth.
func BenchmarkCheckDeepSchema(b *testing.B) {
	const fits = 9990
	deep := `{"type":"object","properties":{"d":` + strings.Repeat(`{"description":"a level","additionalItems":false,"items":`, fits) + `{}` + strings.Repeat(`}`, fits) + `}}`
	tl := Tool{Name: "deep", Description: "A tool with a deep schema.", InputSchema: json.RawMessage(deep)}
	b.SetBytes(int64(len(deep)))
	for b.Loop() {
		Check(cleanServer, []Tool{tl})
	}
}

func FuzzScanLegacy(f *testing.F) {
	f.Add(`{"items":[{}],"dependencies":{"a":{"additionalItems":1}}}`, "/items")
	f.Add(`{"$id":"x","$schema":"http://json-schema.org/draft-07/schema#","allOf":[true,{"$recursiveRef":"#"}]}`, "")
	f.Fuzz(func(t *testing.T, raw, skip string) {
		sc := scanLegacy(json.RawMessage(raw), skip)
		if len(sc.Uses) > maxDraft07Hits || sc.Total < len(sc.Uses) {
			t.Fatalf("scan %+v", sc)
		}
	})
}
