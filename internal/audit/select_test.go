package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// writeConfig writes a config file and returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fuzz.yml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuildSkipOrigins(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, "skip-tools: [b*]\ntools: [x]\nper-tool:\n  drop_me: {skip: true}\n")
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"skip-tools": []string{"a*"}, "config": cfg}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c := o.Engine
	wantSkip := []string{"a*", "b*", "drop_me"}
	wantFrom := []string{"--skip-tools a*", "skip-tools b* in fuzz.yml", "per-tool drop_me: skip: true in fuzz.yml"}
	if !slices.Equal(c.SkipTools, wantSkip) || !slices.Equal(c.SkipToolsFrom, wantFrom) {
		t.Errorf("skip-tools %q from %q\nwant %q from %q", c.SkipTools, c.SkipToolsFrom, wantSkip, wantFrom)
	}
	if c.ToolsFrom != "tools x in fuzz.yml" {
		t.Errorf("tools from the file: %q", c.ToolsFrom)
	}
	o, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"tools": []string{"x", "y"}, "skip-tools": []string{"z"}, "config": cfg}}, inputName, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if o.Engine.ToolsFrom != "input tools x,y" || o.Engine.SkipToolsFrom[0] != "input skip-tools z" {
		t.Errorf("an Action's inputs: tools from %q, skip-tools from %q", o.Engine.ToolsFrom, o.Engine.SkipToolsFrom)
	}
}

// TestRunNoMatch: a pattern or per-tool name that matches no tool of the
// server is a usage error, spelled as the front end's users wrote it.
func TestRunNoMatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	server := fixture.Build(t, "clean") // lists add_numbers
	for _, c := range []struct {
		name   string
		s      Settings
		config string
		names  Names
		want   string
	}{
		{"flag", Settings{Given: options.Values{"tools": []string{"add_number"}}}, "", FlagNames,
			`--tools add_number matches no tool of the server; did you mean "add_numbers"?`},
		{"input", Settings{Given: options.Values{"tools": []string{"nothing*"}}}, "", inputName,
			`input tools nothing* matches no tool of the server`},
		{"config tools", Settings{}, "tools: [add-numbers]\n", FlagNames,
			`config tools add-numbers matches no tool of the server; did you mean "add_numbers"?`},
		{"config skip-tools", Settings{Given: options.Values{"skip-tools": []string{"add_*"}}}, "skip-tools: [ad_numbers]\n", FlagNames,
			`skip-tools ad_numbers in fuzz.yml matches no tool of the server; did you mean "add_numbers"?`},
		{"per-tool", Settings{}, "per-tool:\n  Add_Numbers:\n    timeout: 3s\n", inputName,
			`config per-tool Add_Numbers matches no tool of the server; did you mean "add_numbers"?`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			s.Command, s.Given = []string{server}, s.Given.Clone()
			s.Given.Set("config", os.DevNull)
			if c.config != "" {
				s.Given.Set("config", writeConfig(t, c.config))
			}
			o, err := Build(s, c.names, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			out := Run(ctx, o)
			if out.Code != ExitUsage || out.Report != nil || !errors.Is(out.Err, engine.ErrNoMatch) {
				t.Fatalf("code %d, report %v, err %v; want 2, no report, ErrNoMatch", out.Code, out.Report != nil, out.Err)
			}
			if got := Describe(out.Err, c.names); got != c.want {
				t.Errorf("message\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestUnmatchedExpected(t *testing.T) {
	t.Parallel()
	rep := &report.Report{
		Tools: []report.Tool{{Name: "get_order", Cases: []report.Case{
			{ID: "get_order/valid"}, {ID: "get_order/extra_property"}, {ID: "get_order/wrong_type/order_id"},
		}}},
		Findings: []report.Finding{{ID: "get_order/extra_property#accepted", CaseID: "get_order/extra_property"}},
	}
	if w := unmatchedExpected(rep, nil); w != nil {
		t.Errorf("no expected ids: %q", w)
	}
	got := unmatchedExpected(rep, map[string]string{
		"get_order/extra_property":          "a case",
		"get_order/extra_property#accepted": "a finding",
		"get_ordr/extra_property":           "a typo",
		"gone/valid":                        "stale",
	})
	want := []string{
		`config expected id "get_ordr/extra_property" matches no case or finding of this run, so it suppresses nothing; did you mean "get_order/extra_property"?`,
		`config expected id "gone/valid" matches no case or finding of this run, so it suppresses nothing`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
	many := map[string]string{}
	for _, id := range strings.Fields("a b c d e f g") {
		many[id] = "stale"
	}
	if got := unmatchedExpected(rep, many); len(got) != maxExpectedWarnings+1 || got[len(got)-1] != "2 more config expected ids match no case or finding of this run" {
		t.Errorf("many unmatched ids: %q", got)
	}
}
