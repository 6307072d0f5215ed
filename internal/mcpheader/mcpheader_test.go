package mcpheader

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		bindings     []Binding
		problem      string // the pointer of the first problem, "" for none
		message      string // in its message
	}{
		{"string and integer", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"zone":{"type":"integer","x-mcp-header":"Zone"}}}`,
			[]Binding{{Path: []string{"region"}, Name: "Region"}, {Path: []string{"zone"}, Name: "Zone"}}, "", ""},
		{"nested through properties", `{"properties":{"a":{"type":"object","properties":{"b/c":{"type":"boolean","x-mcp-header":"Flag"}}}}}`,
			[]Binding{{Path: []string{"a", "b/c"}, Name: "Flag"}}, "", ""},
		{"a property named x-mcp-header", `{"properties":{"x-mcp-header":{"type":"string"}}}`, nil, "", ""},
		{"in a default value", `{"properties":{"a":{"type":"object","default":{"x-mcp-header":"X"}}}}`, nil, "", ""},
		{"number", `{"properties":{"price":{"type":"number","x-mcp-header":"Price"}}}`, nil, "/properties/price/x-mcp-header", `type "number"`},
		{"object", `{"properties":{"o":{"type":"object","x-mcp-header":"O"}}}`, nil, "/properties/o/x-mcp-header", "only integer, string and boolean"},
		{"no type", `{"properties":{"o":{"x-mcp-header":"O"}}}`, nil, "/properties/o/x-mcp-header", "no type"},
		{"type array", `{"properties":{"o":{"type":["string","null"],"x-mcp-header":"O"}}}`, nil, "/properties/o/x-mcp-header", "type"},
		{"under items", `{"properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`, nil, "/properties/l/items/x-mcp-header", "statically reachable"},
		{"under anyOf", `{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, nil, "/anyOf/0/properties/a/x-mcp-header", "statically reachable"},
		{"under then", `{"if":{},"then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`, nil, "/then/properties/a/x-mcp-header", "statically reachable"},
		{"under $defs", `{"$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`, nil, "/$defs/d/x-mcp-header", "statically reachable"},
		{"on the root", `{"type":"string","x-mcp-header":"Root"}`, nil, "/x-mcp-header", "schema root"},
		{"empty", `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, nil, "/properties/a/x-mcp-header", "non-empty string"},
		{"not a string", `{"properties":{"a":{"type":"string","x-mcp-header":7}}}`, nil, "/properties/a/x-mcp-header", "non-empty string"},
		{"CR LF", `{"properties":{"a":{"type":"string","x-mcp-header":"A\r\nX-Injected: 1"}}}`, nil, "/properties/a/x-mcp-header", `'\r' is not allowed`},
		{"space", `{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`, nil, "/properties/a/x-mcp-header", `' ' is not allowed`},
		{"colon", `{"properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`, nil, "/properties/a/x-mcp-header", `':' is not allowed`},
		{"non-ASCII", `{"properties":{"a":{"type":"string","x-mcp-header":"Zürich"}}}`, nil, "/properties/a/x-mcp-header", `'ü' is not allowed`},
		{"duplicate", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`, nil, "/properties/b/x-mcp-header", "repeats"},
		{"unsafe bounds", `{"properties":{"a":{"type":"integer","minimum":1e16,"x-mcp-header":"Big"}}}`, nil, "/properties/a/x-mcp-header", "2^53"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, problems := Parse(json.RawMessage(tc.schema))
			if tc.problem == "" {
				if len(problems) > 0 || !reflect.DeepEqual(b, tc.bindings) {
					t.Fatalf("bindings %v, problems %v; want %v", b, problems, tc.bindings)
				}
				return
			}
			if len(problems) == 0 || problems[0].Pointer != tc.problem || !strings.Contains(problems[0].Message, tc.message) {
				t.Fatalf("problems %+v; want %s: …%s…", problems, tc.problem, tc.message)
			}
			if strings.ContainsAny(problems[0].Message, "\r\n") {
				t.Errorf("raw CR or LF in %q", problems[0].Message)
			}
		})
	}
}

func TestParseBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"properties":{`)
	for i := range 50 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"p` + strings.Repeat("x", i) + `":{"type":"number","x-mcp-header":"P"}`)
	}
	b.WriteString(`}}`)
	_, problems := Parse(json.RawMessage(b.String()))
	if len(problems) != maxProblems+1 || !strings.Contains(problems[maxProblems].Message, "30 more") {
		t.Fatalf("%d problems, last %+v", len(problems), problems[len(problems)-1])
	}
	deep := strings.Repeat(`{"properties":{"a":`, 200) + `{"type":"string","x-mcp-header":"Deep"}` + strings.Repeat(`}}`, 200)
	if b, p := Parse(json.RawMessage(deep)); len(b) != 0 || len(p) != 0 {
		t.Errorf("past maxDepth: %v %v", b, p)
	}
}

func TestValue(t *testing.T) {
	for raw, want := range map[string]string{
		`"us-west1"`:           "us-west1",
		`"zürich"`:             "=?base64?esO8cmljaA==?=",
		`""`:                   "=?base64??=",
		`" edge"`:              "=?base64?IGVkZ2U=?=",
		`"a\nb"`:               "=?base64?YQpi?=",
		`"=?base64?YQ==?="`:    "=?base64?PT9iYXNlNjQ/WVE9PT89?=",
		`true`:                 "true",
		`false`:                "false",
		`42`:                   "42",
		`-7`:                   "-7",
		`1e3`:                  "1000",
		`2.0`:                  "2",
		`9007199254740991`:     "9007199254740991",
		`9007199254740992`:     "",
		`-9223372036854775808`: "",
		`2.5`:                  "",
		`1e308`:                "",
		`null`:                 "",
		`{"a":1}`:              "",
		`[1]`:                  "",
		`"` + strings.Repeat("a", MaxValue+1) + `"`: "",
	} {
		got, ok := Value(json.RawMessage(raw))
		if got != want || ok != (want != "") {
			t.Errorf("Value(%.40s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}

func TestHeaders(t *testing.T) {
	b, _ := Parse(json.RawMessage(`{"properties":{"region":{"type":"string","x-mcp-header":"Region"},"o":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"n-th"}}},"flag":{"type":"boolean","x-mcp-header":"Flag"}}}`))
	got := Headers(b, json.RawMessage(`{"region":"eu","o":{"n":3},"flag":null,"extra":1}`))
	want := http.Header{"Mcp-Param-Region": {"eu"}, "Mcp-Param-N-Th": {"3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Headers = %v, want %v", got, want)
	}
	// A wrong-typed value is mirrored as its own type; one with no header
	// form is left out.
	got = Headers(b, json.RawMessage(`{"region":true,"o":{"n":"three"},"flag":[1]}`))
	want = http.Header{"Mcp-Param-Region": {"true"}, "Mcp-Param-N-Th": {"three"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wrong types: Headers = %v, want %v", got, want)
	}
	if h := Headers(b, json.RawMessage(`[1]`)); h != nil {
		t.Errorf("arguments not an object: %v", h)
	}
	// A hostile name that got into a binding anyway is never sent.
	if h := Headers([]Binding{{Path: []string{"a"}, Name: "A\r\nX: 1"}}, json.RawMessage(`{"a":"v"}`)); h != nil {
		t.Errorf("hostile name: %v", h)
	}
}

func TestMismatch(t *testing.T) {
	b, _ := Parse(json.RawMessage(`{"properties":{"a":{"type":"string","x-mcp-header":"A"},"n":{"type":"integer","x-mcp-header":"N"},"f":{"type":"boolean","x-mcp-header":"F"}}}`))
	for args, want := range map[string][2]string{
		`{"a":"x"}`:                    {"Mcp-Param-A", "mcp-fuzz-other-value"},
		`{"a":"mcp-fuzz-other-value"}`: {"Mcp-Param-A", "mcp-fuzz-another-value"},
		`{"n":41}`:                     {"Mcp-Param-N", "42"},
		`{"n":9007199254740991}`:       {"Mcp-Param-N", "9007199254740990"},
		`{"f":true}`:                   {"Mcp-Param-F", "false"},
		`{"a":{"o":1},"f":false}`:      {"Mcp-Param-F", "true"},
		`{"a":null,"n":null}`:          {"", ""},
	} {
		h, v, ok := Mismatch(b, json.RawMessage(args))
		if h != want[0] || v != want[1] || ok != (want[0] != "") {
			t.Errorf("Mismatch(%s) = %q %q %v; want %q", args, h, v, ok, want)
		}
	}
}
