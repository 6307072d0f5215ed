package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// Cancelling the run (SIGINT in the CLI) while a call hangs stops the server
// and returns the cases run so far, not nothing.
func TestInterruptedRunReturnsPartialReport(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cases := 0
	cfg := Config{
		Command:        []string{fixture.Build(t, "hang")},
		Timeout:        time.Minute, // the bad cases hang for good: only the cancel ends them
		StartupTimeout: 20 * time.Second,
		Progress: func(e Event) {
			if e.Kind == "case" {
				cases++
				if cases == 1 { // the valid call answered; the next one hangs
					time.AfterFunc(300*time.Millisecond, func() { cancel(errors.New("test interrupt")) })
				}
			}
		},
	}
	done := make(chan struct{})
	var err error
	var ranCases int
	var endedEarly string
	var graded, interrupted bool
	go func() {
		defer close(done)
		rep, e := Run(ctx, cfg)
		err = e
		if rep != nil {
			ranCases, endedEarly = rep.Summary.Cases, rep.EndedEarly
			graded, interrupted = rep.Graded, rep.Interrupted
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the cancel")
	}
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "test interrupt") {
		t.Fatalf("err = %v, want ErrInterrupted with the cause", err)
	}
	if ranCases == 0 || !strings.Contains(endedEarly, "interrupted") || !strings.Contains(endedEarly, "1 of 1 tools were not run to the end") {
		t.Errorf("partial report: %d cases, endedEarly %q", ranCases, endedEarly)
	}
	// A grade of the few cases that ran would read like a verdict.
	if graded || !interrupted {
		t.Errorf("partial report: graded %v, interrupted %v; want not graded, interrupted", graded, interrupted)
	}
	assertNoChildren(t)
}
