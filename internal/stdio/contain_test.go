//go:build linux

package stdio

import (
	"testing"
	"time"
)

// Hostile servers: each one tries to outlive Stop, to keep Stop from returning, or
// to see file descriptors it was not given. The bounds below are "did not hang"
// guards, not speed claims.

const hangGuard = 20 * time.Second

// stopWithin calls Stop and fails the test if it has not returned after hangGuard.
// Stop may keep running in the background; the test's cleanups unblock it.
func stopWithin(t *testing.T, p *Process) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Errorf("Stop did not return within %v", hangGuard)
	}
}

func TestStopReturnsWhenOnViolationBlocks(t *testing.T) {
	release := make(chan struct{})
	cfg := sh(`echo not json; sleep 300`)
	entered := make(chan struct{}, 1)
	cfg.OnViolation = func(Violation) {
		entered <- struct{}{}
		<-release
	}
	p := start(t, cfg)
	t.Cleanup(func() { close(release) }) // runs before start's Stop
	select {
	case <-entered:
	case <-time.After(hangGuard):
		t.Fatal("OnViolation was never called")
	}
	stopWithin(t, p)
}
