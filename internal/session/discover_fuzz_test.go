package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
)

// FuzzToolsList decodes arbitrary tools/list results as discover does
// (parsePage, then decodeTools). A page is refused only when it is not an
// object, its tools are not an array or its nextCursor is not a string; every
// entry of an accepted page becomes either a tool or a lint; no tool has an
// empty or repeated name; whatever is kept raw is valid JSON.
func FuzzToolsList(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"get_weather","description":"d","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}`,
		`{"tools":[{"name":"a","inputSchema":{}},{"name":"a"},{"name":""},{"description":"nameless"},42,null,"x",[]],"nextCursor":"c1"}`,
		`{"tools":[{"name":7},{"name":null},{"name":["x"]},{"name":"\u202e\u0000"}],"nextCursor":null}`,
		`{"tools":[{"name":"t","annotations":{"readOnlyHint":true,"destructiveHint":"yes"},"execution":{"taskSupport":"required"},"outputSchema":{"type":"object"}}]}`,
		`{"tools":[{"name":"t","annotations":[],"execution":5}]}`,
		`{"tools":[{"name":"x","name":"y"}],"nextCursor":""}`,
		`{"tools":null}`,
		`{"tools":{}}`,
		`{"nextCursor":5}`,
		`{}`,
		`[]`,
		`null`,
		`{"tools":[{"name":"deep","inputSchema":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200) + `}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := parsePage(raw, "tools")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if !json.Valid(raw) || !strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
			t.Fatalf("parsePage accepted %q, which is not a JSON object", raw)
		}
		tools, lint := mcptool.Decode(p.Items)
		if len(tools)+len(lint) != len(p.Items) {
			t.Fatalf("%d entries became %d tools and %d lints", len(p.Items), len(tools), len(lint))
		}
		seen := map[string]bool{}
		for _, tl := range tools {
			if tl.Name == "" {
				t.Fatalf("tool with an empty name kept, without a lint: %+v", tl)
			}
			if seen[tl.Name] {
				t.Fatalf("tool name %q kept twice", tl.Name)
			}
			seen[tl.Name] = true
			for name, v := range map[string]json.RawMessage{"inputSchema": tl.InputSchema, "outputSchema": tl.OutputSchema, "annotations": tl.Annotations} {
				if v != nil && !json.Valid(v) {
					t.Fatalf("tool %q: %s is not valid JSON: %q", tl.Name, name, v)
				}
			}
			if tl.Annotations == nil && (tl.ReadOnly != nil || tl.Destructive != nil) {
				t.Fatalf("tool %q: hints without annotations", tl.Name)
			}
		}
		byPointer := map[string]string{}
		for _, l := range lint {
			byPointer[l.Pointer] = l.Code
		}
		nameless := 0
		for i, it := range p.Items {
			if !strings.HasPrefix(strings.TrimSpace(string(it)), "{") {
				if c := byPointer[fmt.Sprintf("/tools/%d", i)]; c != "tool_not_object" {
					t.Fatalf("entry %d (%.40s) is not an object, linted %q", i, it, c)
				}
				continue
			}
			var fields map[string]json.RawMessage
			if json.Unmarshal(it, &fields) == nil {
				var name string
				if json.Unmarshal(fields["name"], &name) != nil || name == "" {
					nameless++
				}
			}
		}
		withoutName := 0
		for _, l := range lint {
			switch l.Code {
			case "tool_without_name":
				withoutName++
			case "tool_not_object", "duplicate_tool_name":
			default:
				t.Fatalf("unknown lint code %q", l.Code)
			}
			if l.Severity != "error" || l.Message == "" || l.Hint == "" {
				t.Fatalf("incomplete lint %+v", l)
			}
		}
		if withoutName != nameless {
			t.Fatalf("%d entries have no usable name, %d tool_without_name lints", nameless, withoutName)
		}
	})
}
