package engine

import (
	"errors"
	"testing"
	"time"
)

func TestCheckMatches(t *testing.T) {
	parallel(t)
	tools := []tool{{Name: "get_order"}, {Name: "list_orders"}, {Name: "echo"}}
	for _, c := range []struct {
		name string
		cfg  Config
		want string // the message as Describe spells it with Go field names; "" for no error
	}{
		{"all match", Config{Tools: []string{"get_*", "echo"}, SkipTools: []string{"list_orders"},
			Examples: map[string]map[string]any{"echo": {}}, ToolTimeouts: map[string]time.Duration{"get_order": time.Second},
			AlsoCall: []string{"echo"}}, ""},
		{"tools", Config{Tools: []string{"echo", "get_ordr"}}, `Tools get_ordr matches no tool of the server; did you mean "get_order"?`},
		{"tools glob", Config{Tools: []string{"fetch_*"}}, `Tools fetch_* matches no tool of the server`},
		{"skip-tools", Config{SkipTools: []string{"ecoh"}}, `SkipTools ecoh matches no tool of the server; did you mean "echo"?`},
		{"skip-tools origin", Config{SkipTools: []string{"echo", "ecoh"}, SkipToolsFrom: []string{"", "input skip-tools ecoh"}},
			`input skip-tools ecoh matches no tool of the server; did you mean "echo"?`},
		{"example", Config{Examples: map[string]map[string]any{"list_order": {}}},
			`Examples list_order matches no tool of the server; did you mean "list_orders" or "get_order"?`},
		{"timeout", Config{ToolTimeouts: map[string]time.Duration{"Echo2": time.Second}}, `ToolTimeouts Echo2 matches no tool of the server; did you mean "echo"?`},
		{"include", Config{AlsoCall: []string{"get_orders"}}, `AlsoCall get_orders matches no tool of the server; did you mean "get_order" or "list_orders"?`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.checkMatches(tools)
			if c.want == "" {
				if err != nil {
					t.Fatalf("checkMatches: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.Is(err, ErrNoMatch) || !errors.Is(err, ErrConfig) || !errors.As(err, &ce) {
				t.Fatalf("checkMatches = %v, want ErrNoMatch, ErrConfig and a *ConfigError", err)
			}
			if got := ce.Describe(func(f string) string { return f }); got != c.want {
				t.Errorf("message\n got %s\nwant %s", got, c.want)
			}
		})
	}
	err := Config{Tools: []string{"x"}}.checkMatches(nil)
	if err == nil || err.Error() != "invalid configuration: Tools x matches no tool of the server (it lists none)" {
		t.Errorf("no tools listed: %v", err)
	}
}

func TestSkipReasonOrigin(t *testing.T) {
	parallel(t)
	yes := true
	echo := tool{Name: "echo", ReadOnly: &yes}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{SkipTools: []string{"e*"}}, "skipped by --skip-tools e*"},
		{Config{SkipTools: []string{"x", "echo"}, SkipToolsFrom: []string{"--skip-tools x", "per-tool echo: skip: true in .mcp-fuzz.yml"}},
			"skipped by per-tool echo: skip: true in .mcp-fuzz.yml"},
		{Config{Tools: []string{"a", "b"}}, "not matched by --tools a,b"},
		{Config{Tools: []string{"a", "b"}, ToolsFrom: "input tools a,b"}, "not matched by input tools a,b"},
		{Config{Tools: []string{"e*"}, ToolsFrom: "input tools e*"}, ""},
	} {
		if got := c.cfg.skipReason(echo); got != c.want {
			t.Errorf("%+v: skipReason = %q, want %q", c.cfg, got, c.want)
		}
	}
}
