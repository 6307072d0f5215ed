package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestEveryEntryPointBoxesTheServer: Run, Plan (list, cases, init) and
// Replay all start a stdio server in the box. The fixture reads what it
// can of the program that started it through /proc and says whether that
// program's environment could be read; in the box it cannot, with NoBox
// it can (the fixture works).
func TestEveryEntryPointBoxesTheServer(t *testing.T) {
	parallel(t)
	snoop := fixture.Build(t, "hostile-proc-snoop")
	cfgFor := func(noBox bool) Config {
		return Config{Command: []string{snoop}, Timeout: 5 * time.Second, StartupTimeout: 20 * time.Second, Version: "test", Cases: 2, NoBox: noBox}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	rep, err := Run(ctx, cfgFor(false))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Run == nil || !rep.Run.Box || !strings.Contains(rep.Server.Name, "started-by-environ=denied") {
		t.Errorf("Run: run %+v, server %q", rep.Run, rep.Server.Name)
	}
	plan, err := Plan(ctx, cfgFor(false))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Run == nil || !plan.Run.Box || !strings.Contains(plan.Server.Name, "started-by-environ=denied") {
		t.Errorf("Plan: run %+v, server %q", plan.Run, plan.Server.Name)
	}
	unboxed, err := Plan(ctx, cfgFor(true))
	if err != nil {
		t.Fatal(err)
	}
	if unboxed.Run == nil || unboxed.Run.Box || !strings.Contains(unboxed.Server.Name, "started-by-environ=read") {
		t.Fatalf("Plan with NoBox: run %+v, server %q: the fixture proves nothing", unboxed.Run, unboxed.Server.Name)
	}
	valid := validCase(t, rep, "peek")
	replayed, err := Replay(ctx, cfgFor(false), "peek", valid)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(replayed.Response, "started-by-environ=denied") {
		t.Errorf("Replay: response %q", replayed.Response)
	}
}
