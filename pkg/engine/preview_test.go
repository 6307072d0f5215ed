package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestPlanMatchesRun checks that Plan says what Run does: the same tools
// called, the same skip reasons, the same case ids in the same order.
func TestPlanMatchesRun(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	for _, adjust := range []func(*Config){
		nil,
		func(c *Config) { c.IncludeDestructive = true },
		func(c *Config) { c.Tools = []string{"delete_*"}; c.Cases = 3 },
	} {
		cfg := Config{Command: []string{fixture.Build(t, "destructive")}, Timeout: 2 * time.Second, StartupTimeout: 20 * time.Second, Version: "test"}
		if adjust != nil {
			adjust(&cfg)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		p, err := Plan(ctx, cfg)
		if err != nil {
			cancel()
			t.Fatalf("Plan: %v", err)
		}
		rep, err := Run(ctx, cfg)
		cancel()
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		assertNoChildren(t)
		if len(p.Tools) != len(rep.Tools) {
			t.Fatalf("Plan has %d tools, Run %d", len(p.Tools), len(rep.Tools))
		}
		for i, pt := range p.Tools {
			rt := rep.Tools[i]
			if pt.Name != rt.Name || pt.Called != rt.Tested || pt.SkipReason != rt.SkipReason {
				t.Errorf("tool %d: Plan %q called %v (%q), Run %q tested %v (%q)", i, pt.Name, pt.Called, pt.SkipReason, rt.Name, rt.Tested, rt.SkipReason)
			}
			if pt.Called && pt.CallReason == "" {
				t.Errorf("%s: called, with no reason", pt.Name)
			}
			if !rt.Tested {
				continue
			}
			var planned, ran []string
			for _, c := range pt.Cases {
				planned = append(planned, c.ID)
			}
			for _, c := range rt.Cases {
				ran = append(ran, c.ID)
			}
			if !slices.Equal(planned, ran) {
				t.Errorf("%s: Plan's cases %v, Run's %v", pt.Name, planned, ran)
			}
		}
	}
}

// TestPlanCallsNothing plans the malformed-tools fixture, which logs every
// message it reads: nothing may reach it after discovery.
func TestPlanCallsNothing(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	log := filepath.Join(t.TempDir(), "methods.log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Plan(ctx, Config{Command: []string{fixture.Build(t, "malformed-tools"), "-depth", "40", "-log", log}, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	assertNoChildren(t)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	discovery := []string{"server/discover", "initialize", "notifications/initialized", "tools/list", "resources/list", "resources/templates/list", "prompts/list"}
	for _, m := range strings.Fields(string(b)) {
		if !slices.Contains(discovery, m) {
			t.Errorf("the server read %s: Plan sends nothing after discovery", m)
		}
	}
	if len(p.Lint) == 0 {
		t.Error("no lint findings for malformed tools")
	}
	for _, pt := range p.Tools {
		if len(pt.Cases) == 0 || pt.Cases[0].Kind != "valid" {
			t.Errorf("%s: no valid case first: %+v", pt.Name, pt.Cases)
		}
	}
}
