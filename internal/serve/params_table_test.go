package serve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options/optionstest"
)

// ownArguments are the parameters of the tools that are no setting of an
// audit: which report to read, which case to replay, whose selection to
// preview, how to render.
var ownArguments = []string{"report_path", "case_id", "destructive", "format", "max_chars"}

// paramText writes a parameter's value as its description does: a
// duration in seconds.
func paramText(v any) string {
	if d, ok := v.(time.Duration); ok {
		return fmt.Sprint(int(d.Seconds()))
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// The audit tools take exactly the parameters of the table's settings;
// the other tools take some of them and their own arguments. Each
// parameter's schema has the table's bounds and values, and its
// description states the table's default and largest value.
func TestParamsAreTheTables(t *testing.T) {
	var params []string
	for _, o := range options.All() {
		if o.Param.Name != "" {
			params = append(params, o.Param.Name)
		}
	}
	schemas := map[string]*jsonschema.Schema{
		"audit":      auditSchema().(*jsonschema.Schema),
		"list_tools": inputSchema[ListToolsInput](nil),
		"replay":     inputSchema[ReplayInput](nil),
	}
	for tool, s := range schemas {
		var names []string
		for name, p := range s.Properties {
			names = append(names, name)
			o, ok := options.ByParam(name)
			if !ok {
				if !slices.Contains(ownArguments, name) {
					t.Errorf("%s: parameter %s is no setting of the table", tool, name)
				}
				continue
			}
			doc := optionstest.Doc{Default: paramText(o.ParamDefault()), Max: paramText(o.Param.Max)}
			for _, m := range doc.Mismatches(p.Description) {
				t.Errorf("%s: %s %s", tool, name, m)
			}
			if o.Param.Max != nil && (p.Minimum == nil || *p.Minimum != 1 || p.Maximum == nil || paramText(o.Param.Max) != fmt.Sprint(*p.Maximum)) {
				t.Errorf("%s: %s ranges %v to %v, want 1 to %s", tool, name, p.Minimum, p.Maximum, paramText(o.Param.Max))
			}
			if fmt.Sprint(p.Enum) != fmt.Sprint(anys(o.Values)) {
				t.Errorf("%s: %s takes %v, the table %v", tool, name, p.Enum, o.Values)
			}
		}
		if tool == "audit" {
			slices.Sort(names)
			slices.Sort(params)
			if !slices.Equal(names, params) {
				t.Errorf("audit takes %v, the table's parameters are %v", names, params)
			}
		}
	}
	for key, want := range map[string]string{"timeout": "timeout_seconds", "skip-tools": "skip_tools", "header": "headers", "startup-timeout": "startup_timeout_seconds", "pass-env": "pass_env"} {
		if got := argNames(key); got != want {
			t.Errorf("argNames(%s) = %q, want %q", key, got, want)
		}
	}
}

func anys(values []string) []any {
	if values == nil {
		return nil
	}
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// A value out of a parameter's bounds is refused before a target starts,
// naming the parameter and the bound.
func TestOutOfBoundsParams(t *testing.T) {
	cs := connect(t)
	for _, o := range options.All() {
		if o.Param.Name == "" || (o.Param.Max == nil && o.Values == nil) {
			continue
		}
		var bad []any
		if o.Param.Max != nil {
			var max int
			fmt.Sscan(paramText(o.Param.Max), &max)
			bad = append(bad, 0, max+1)
		}
		if o.Values != nil {
			bad = append(bad, "no-such-"+o.Key)
		}
		for _, v := range bad {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{"command": []string{"srv"}, o.Param.Name: v}})
			if err != nil || !res.IsError || !strings.Contains(text(res), "/properties/"+o.Param.Name) {
				t.Errorf("%s %v: %v, %v; want a refusal naming it", o.Param.Name, v, err, res)
			}
		}
	}
}
