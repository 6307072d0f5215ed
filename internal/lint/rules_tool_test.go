package lint

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMissingDescription(t *testing.T) {
	runRule(t, "missing_description", []ruleCase{
		{name: "empty", tools: []Tool{tool(func(t *Tool) { t.Description = "" })}, want: 1, pointer: "/description", contains: `"search_issues"`},
		{name: "blank", tools: []Tool{tool(func(t *Tool) { t.Description = " \n\t" })}, want: 1},
		{name: "present", want: 0},
		{name: "short is not missing", tools: []Tool{tool(func(t *Tool) { t.Description = "Search" })}, want: 0},
	})
}

func TestShortDescription(t *testing.T) {
	runRule(t, "short_description", []ruleCase{
		{name: "one word", tools: []Tool{tool(func(t *Tool) { t.Description = "Search" })}, want: 1, pointer: "/description", contains: "6 characters"},
		{name: "eleven runes padded", tools: []Tool{tool(func(t *Tool) { t.Description = "  héllo world  " })}, want: 1, contains: "11 characters"},
		{name: "twelve", tools: []Tool{tool(func(t *Tool) { t.Description = "Search items" })}, want: 0},
		{name: "empty is missing, not short", tools: []Tool{tool(func(t *Tool) { t.Description = "" })}, want: 0},
	})
}

func TestDuplicateToolName(t *testing.T) {
	other := tool(func(t *Tool) { t.Name = "list_issues" })
	nameless := tool(func(t *Tool) { t.Name = "" })
	runRule(t, "duplicate_tool_name", []ruleCase{
		{name: "twice", tools: []Tool{cleanTool(), other, cleanTool()}, want: 1, pointer: "/name", contains: "position 3 is already used by the tool at position 1"},
		{name: "three times", tools: []Tool{cleanTool(), cleanTool(), cleanTool()}, want: 2},
		{name: "unique", tools: []Tool{cleanTool(), other}, want: 0},
		{name: "nameless twice", tools: []Tool{nameless, nameless}, want: 0},
	})
}

func TestInvalidToolName(t *testing.T) {
	named := func(n string) []Tool { return []Tool{tool(func(t *Tool) { t.Name = n })} }
	runRule(t, "invalid_tool_name", []ruleCase{
		{name: "empty", tools: named(""), want: 1, pointer: "/name", contains: "tool #1 has no name"},
		{name: "space", tools: named("search issues"), want: 1, contains: "contains ' '"},
		{name: "slash", tools: named("a/b"), want: 1, contains: "contains '/'"},
		{name: "unicode", tools: named("café"), want: 1, contains: "contains 'é'"},
		{name: "too long", tools: named(strings.Repeat("a", 129)), want: 1, contains: "129 characters"},
		{name: "max length", tools: named(strings.Repeat("a", 128)), want: 0},
		{name: "all allowed characters", tools: named("Az09_.-"), want: 0},
	})
}

func TestToolNameStyle(t *testing.T) {
	named := func(n string) []Tool { return []Tool{tool(func(t *Tool) { t.Name = n })} }
	runRule(t, "tool_name_style", []ruleCase{
		{name: "camelCase", tools: named("getUserID"), want: 1, pointer: "/name", contains: `"getUserID"`},
		{name: "mixed separators", tools: named("get_user-id"), want: 1},
		{name: "upper snake", tools: named("GET_USER"), want: 1},
		{name: "double underscore", tools: named("get__user"), want: 1},
		{name: "snake", tools: named("get_user_id"), want: 0},
		{name: "kebab", tools: named("get-user-id"), want: 0},
		{name: "one word", tools: named("search"), want: 0},
		{name: "namespaced", tools: named("github.create_issue"), want: 0},
		{name: "invalid names are not styled", tools: named("get user"), want: 0},
	})
	for in, want := range map[string]string{"getUserID": "get_user_id", "HTTPServer": "http_server", "get-user": "get_user", "GET_USER": "get_user", "a.bC": "a.b_c"} {
		if got := toSnake(in); got != want {
			t.Errorf("toSnake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNoAnnotations(t *testing.T) {
	ann := func(a string) []Tool {
		return []Tool{tool(func(t *Tool) {
			t.Annotations = nil
			if a != "" {
				t.Annotations = json.RawMessage(a)
			}
		})}
	}
	runRule(t, "no_annotations", []ruleCase{
		{name: "absent", tools: ann(""), want: 1, pointer: "/annotations", contains: "has no annotations"},
		{name: "null", tools: ann("null"), want: 1},
		{name: "not an object", tools: ann(`[true]`), want: 1, contains: "not a JSON object"},
		{name: "title only", tools: ann(`{"title":"Search"}`), want: 1, contains: "set none of"},
		{name: "read-only", want: 0},
		{name: "open world false", tools: ann(`{"openWorldHint":false}`), want: 0},
	})
}

func TestContradictoryAnnotations(t *testing.T) {
	ann := func(a string) []Tool { return []Tool{tool(func(t *Tool) { t.Annotations = json.RawMessage(a) })} }
	runRule(t, "contradictory_annotations", []ruleCase{
		{name: "both true", tools: ann(`{"readOnlyHint":true,"destructiveHint":true}`), want: 1, pointer: "/annotations"},
		{name: "destructive false", tools: ann(`{"readOnlyHint":true,"destructiveHint":false}`), want: 0},
		{name: "read-only false", tools: ann(`{"readOnlyHint":false,"destructiveHint":true}`), want: 0},
		{name: "strings are not booleans", tools: ann(`{"readOnlyHint":"true","destructiveHint":"true"}`), want: 0},
		{name: "absent", tools: ann(`null`), want: 0},
	})
}
