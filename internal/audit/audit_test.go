package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// build is Build for a fixture server with the given gates, cut short.
func build(t *testing.T, fixtureName string, s Settings) Options {
	t.Helper()
	s.Command = []string{fixture.Build(t, fixtureName)}
	s.Given = s.Given.Clone()
	s.Given.Set("config", os.DevNull)
	s.Given.Set("cases", 4)
	s.Given.Set("timeout", 2*time.Second)
	o, err := Build(s, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out := Run(ctx, build(t, "clean", Settings{}))
	if out.Code != ExitOK || out.Report == nil || !out.Gates.Passed || out.Err != nil {
		t.Errorf("clean server: code %d, report %v, gates %+v, err %v; want 0, a report, passed", out.Code, out.Report != nil, out.Gates, out.Err)
	}

	out = Run(ctx, build(t, "crash-exit", Settings{Given: options.Values{"fail-on": []string{"crash"}}}))
	if out.Code != ExitGate || out.Gates.Passed || len(out.Gates.Failures) == 0 || out.Report == nil {
		t.Errorf("crashing server gated on crash: code %d, gates %+v; want 1 and the missed gate", out.Code, out.Gates)
	}

	o := build(t, "clean", Settings{})
	o.Engine.Command = []string{filepath.Join(t.TempDir(), "no-such-server")}
	out = Run(ctx, o)
	if out.Code != ExitConnect || out.Err == nil || out.Report != nil {
		t.Errorf("missing server: code %d, err %v; want 3 and why", out.Code, out.Err)
	}

	out = Run(ctx, Options{})
	if out.Code != ExitUsage || !errors.Is(out.Err, engine.ErrConfig) {
		t.Fatalf("no target: code %d, err %v; want 2 and a configuration error", out.Code, out.Err)
	}
	if got := Describe(out.Err, FlagNames); !strings.Contains(got, "a server command after -- or --url") {
		t.Errorf("the configuration error reads %q to a command-line user", got)
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(Interrupt{Signal: syscall.SIGTERM})
	out := Run(ctx, build(t, "clean", Settings{}))
	if out.Code != 128+int(syscall.SIGTERM) || !out.Interrupted() || out.Gates.Failures != nil {
		t.Errorf("SIGTERM before the start: code %d, interrupted %v; want 143", out.Code, out.Interrupted())
	}

	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(Interrupt{Signal: os.Interrupt})
	if out := Run(ctx, build(t, "clean", Settings{})); out.Code != ExitInterrupted || !out.Interrupted() {
		t.Errorf("SIGINT before the start: code %d; want 130", out.Code)
	}
}
