//go:build linux

package stdio

import (
	"slices"
	"strconv"
	"strings"
	"syscall"
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

// listFDs returns the descriptors a server started with cfg sees, as listed by
// ls /proc/self/fd (which adds its own directory descriptor).
func listFDs(t *testing.T) []int {
	t.Helper()
	p := start(t, sh(`ls /proc/self/fd >&2`))
	waitDone(t, p)
	stopWithin(t, p)
	var fds []int
	for _, f := range strings.Fields(p.Stderr()) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("ls /proc/self/fd printed %q", p.Stderr())
		}
		fds = append(fds, n)
	}
	slices.Sort(fds)
	return fds
}

func TestServerSeesOnlyStandardFDs(t *testing.T) {
	// Descriptors Go did not open (here: opened without O_CLOEXEC, as a parent
	// process's would be) must not reach the server.
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	const high = 251
	if err := syscall.Dup2(fd, high); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(high) })

	got := listFDs(t)
	// 0, 1 and 2, and the directory ls reads, which takes the lowest free number.
	if want := []int{0, 1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("server saw descriptors %v, want %v (leaked: %d and %d)", got, want, fd, high)
	}
}
