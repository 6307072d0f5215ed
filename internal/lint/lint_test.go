package lint

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

var cleanServer = Server{
	Name:            "demo",
	Version:         "1.2.3",
	Instructions:    "Search the issue tracker with search_issues.",
	ToolsCapability: true,
}

func cleanTool() Tool {
	return Tool{
		Name:        "search_issues",
		Description: "Search issues by text and return the matching titles.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"Text to search for."}},"required":["q"]}`),
		Annotations: json.RawMessage(`{"readOnlyHint":true}`),
	}
}

// tool returns the clean tool changed by f.
func tool(f func(*Tool)) Tool {
	t := cleanTool()
	f(&t)
	return t
}

// ruleCase is one input for one rule and how many findings of that rule's
// code it must produce.
type ruleCase struct {
	name     string
	srv      *Server // nil means cleanServer
	tools    []Tool  // nil means one clean tool
	want     int
	pointer  string // when set, the first finding's pointer
	contains string // when set, the first finding's message contains it
}

func severityOf(t *testing.T, code string) string {
	t.Helper()
	for _, r := range rules {
		if r.Code == code {
			return string(r.Severity)
		}
	}
	t.Fatalf("no rule %q in the table", code)
	return ""
}

func runRule(t *testing.T, code string, cases []ruleCase) {
	t.Helper()
	sev := severityOf(t, code)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := cleanServer
			if c.srv != nil {
				srv = *c.srv
			}
			tools := c.tools
			if tools == nil {
				tools = []Tool{cleanTool()}
			}
			var got []report.Lint
			for _, l := range Check(srv, tools) {
				if l.Code == code {
					got = append(got, l)
				}
			}
			if len(got) != c.want {
				t.Fatalf("%d %s findings, want %d: %+v", len(got), code, c.want, got)
			}
			if len(got) == 0 {
				return
			}
			l := got[0]
			if string(l.Severity) != sev {
				t.Errorf("severity %q, want %q", l.Severity, sev)
			}
			if l.Message == "" || l.Hint == "" {
				t.Errorf("empty message or hint: %+v", l)
			}
			if c.pointer != "" && l.Pointer != c.pointer {
				t.Errorf("pointer %q, want %q", l.Pointer, c.pointer)
			}
			if c.contains != "" && !strings.Contains(l.Message, c.contains) {
				t.Errorf("message %q does not contain %q", l.Message, c.contains)
			}
		})
	}
}

func TestCleanToolHasNoFindings(t *testing.T) {
	if got := Check(cleanServer, []Tool{cleanTool()}); len(got) != 0 {
		t.Fatalf("clean input produced findings: %+v", got)
	}
	// A tool without arguments is clean too.
	noArgs := tool(func(t *Tool) {
		t.Name = "list-projects"
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
		t.OutputSchema = json.RawMessage(`{"type":"object","properties":{"projects":{"type":"array"}}}`)
	})
	for _, l := range Check(cleanServer, []Tool{noArgs}) {
		if l.Severity != SeverityInfo {
			t.Errorf("unexpected %s finding: %+v", l.Severity, l)
		}
	}
}

func TestRuleTable(t *testing.T) {
	// Digits are allowed after the first letter (draft07_keyword).
	code := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range rules {
		if !code.MatchString(r.Code) {
			t.Errorf("code %q is not snake_case", r.Code)
		}
		if seen[r.Code] {
			t.Errorf("code %q appears twice", r.Code)
		}
		seen[r.Code] = true
		switch r.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			t.Errorf("rule %s: severity %q", r.Code, r.Severity)
		}
		if (r.server == nil) == (r.tool == nil) {
			t.Errorf("rule %s must set exactly one of server and tool", r.Code)
		}
	}
	// Changed's code is outside the table, but one of the same codes.
	if !code.MatchString(toolChanged.Code) || seen[toolChanged.Code] || toolChanged.Severity != SeverityError {
		t.Errorf("Changed's rule %+v", toolChanged)
	}
}

func TestOrderIsDeterministic(t *testing.T) {
	tools := []Tool{
		tool(func(t *Tool) {
			t.Name = "getUser"
			t.Description = ""
			t.Annotations = nil
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"z":{},"a":{},"m":{}}}`)
		}),
		tool(func(t *Tool) { t.Name = "b"; t.Description = "short" }),
		tool(func(t *Tool) { t.Name = "getUser"; t.InputSchema = nil }),
	}
	srv := Server{ToolsCapability: true}
	first := Check(srv, tools)
	for i := 0; i < 20; i++ {
		if got := Check(srv, tools); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d differs:\n%+v\n%+v", i, got, first)
		}
	}
	// Server findings first, then tools in list order, rules in table order.
	rank := map[string]int{}
	for i, r := range rules {
		rank[r.Code] = i
	}
	toolPos := func(l report.Lint, prev int) int {
		if l.Tool == "" {
			return -1
		}
		for i := prev; i < len(tools); i++ {
			if tools[i].Name == l.Tool {
				return i
			}
		}
		return -2
	}
	pos, rk := -1, -1
	for _, l := range first {
		p := toolPos(l, max(pos, 0))
		if p < pos || p == -2 {
			t.Fatalf("finding %+v out of tool order", l)
		}
		if p != pos {
			pos, rk = p, -1
		}
		if rank[l.Code] < rk {
			t.Fatalf("finding %+v out of rule order", l)
		}
		rk = rank[l.Code]
	}
	// Properties are reported in listed order, not sorted.
	var props []string
	for _, l := range first {
		if l.Code == "property_without_type" {
			props = append(props, l.Pointer)
		}
	}
	want := []string{"/inputSchema/properties/z", "/inputSchema/properties/a", "/inputSchema/properties/m"}
	if !reflect.DeepEqual(props, want) {
		t.Errorf("property order %v, want %v", props, want)
	}
}

func TestLongNamesAreTruncated(t *testing.T) {
	long := strings.Repeat("é", 200)
	tools := []Tool{tool(func(t *Tool) {
		t.Name = long
		t.InputSchema = json.RawMessage(`{"type":"object","properties":{"` + long + `":{"type":"string"}},"required":[]}`)
	})}
	got := Check(cleanServer, tools)
	if len(got) == 0 {
		t.Fatal("no findings")
	}
	for _, l := range got {
		if strings.Contains(l.Message, strings.Repeat("é", 81)) || strings.Contains(l.Hint, strings.Repeat("é", 81)) {
			t.Errorf("%s quotes the whole name: %q", l.Code, l.Message)
		}
		if l.Tool != long {
			t.Errorf("%s: Tool field must keep the name as given", l.Code)
		}
	}
	if s := short(long); !strings.HasSuffix(s, "…") || len([]rune(s)) != maxNameLen+1 {
		t.Errorf("short(%d runes) = %d runes", len([]rune(long)), len([]rune(s)))
	}
}

func TestPerPropertyFindingsAreCapped(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"type":"object","required":[],"properties":{`)
	for i := 0; i < 500; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"p` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `_` + itoa(i) + `":{}`)
	}
	sb.WriteString(`}}`)
	got := Check(cleanServer, []Tool{tool(func(t *Tool) { t.InputSchema = json.RawMessage(sb.String()) })})
	n := 0
	for _, l := range got {
		if l.Code == "property_without_type" {
			n++
		}
	}
	if n != maxPerRule+1 {
		t.Fatalf("%d property_without_type findings, want %d", n, maxPerRule+1)
	}
	last := got[len(got)-1]
	if !strings.Contains(last.Message, "480 more properties") {
		t.Errorf("last finding %q does not count the rest", last.Message)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestMalformedSchemas feeds the shapes docs/BEHAVIOUR.md#discovery-and-safety lists; none may panic, and
// each must still produce the findings that apply.
func TestMalformedSchemas(t *testing.T) {
	// 2,500 nested property schemas are 5,000 levels of JSON; twice that is
	// beyond what encoding/json accepts and is reported as not JSON.
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 2500) + `{}` + strings.Repeat(`}}`, 2500)
	tooDeep := strings.Repeat(`{"type":"object","properties":{"a":`, 5000) + `{}` + strings.Repeat(`}}`, 5000)
	enum := `{"type":"object","required":[],"properties":{"e":{"type":"string","description":"x","enum":[` + strings.TrimSuffix(strings.Repeat(`"x",`, 100000), ",") + `]}}}`
	cases := map[string]struct {
		schema string
		want   string // a code that must be reported
	}{
		"properties array":     {`{"type":"object","properties":[{"type":"string"}]}`, "input_schema_does_not_compile"},
		"properties string":    {`{"type":"object","properties":"q"}`, "input_schema_does_not_compile"},
		"property true":        {`{"type":"object","properties":{"q":true},"required":["q"]}`, "property_without_type"},
		"property number":      {`{"type":"object","properties":{"q":5}}`, "input_schema_does_not_compile"},
		"required not list":    {`{"type":"object","properties":{"q":{"type":"string"}},"required":"q"}`, "input_schema_does_not_compile"},
		"required not strings": {`{"type":"object","required":[1,2]}`, "input_schema_does_not_compile"},
		"5000 deep":            {deep, "schema_too_complex"},
		"10000 deep":           {tooDeep, "input_schema_not_object"},
		"huge enum":            {enum, ""}, // few schema objects: compiled
		"ref cycle":            {`{"type":"object","$defs":{"n":{"$ref":"#/$defs/n"}},"properties":{"a":{"$ref":"#/$defs/n","description":"x"}},"required":[]}`, ""},
		"unresolvable ref":     {`{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`, "input_schema_does_not_compile"},
		"not json":             {`{"type":`, "input_schema_not_object"},
		"array":                {`[]`, "input_schema_not_object"},
		"bare true":            {`true`, "input_schema_not_object"},
		"remote ref":           {`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, "remote_ref"},
		"file ref":             {`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, "remote_ref"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tl := tool(func(t *Tool) {
				t.InputSchema = json.RawMessage(c.schema)
				t.OutputSchema = json.RawMessage(c.schema)
			})
			got := Check(cleanServer, []Tool{tl})
			if c.want == "" {
				if len(got) != 0 {
					t.Errorf("unexpected findings: %+v", got)
				}
				return
			}
			for _, l := range got {
				if l.Code == c.want {
					return
				}
			}
			t.Errorf("no %s finding in %+v", c.want, got)
		})
	}
}

// The README lists the lint codes; a rule added here must be added there.
func TestReadmeListsEveryRule(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range append(slices.Clone(rules), toolChanged) {
		if !strings.Contains(string(readme), "`"+r.Code+"`") {
			t.Errorf("README.md does not list the lint code `%s`", r.Code)
		}
	}
}
