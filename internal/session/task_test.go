package session

import (
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
)

func TestTaskParams(t *testing.T) {
	t.Parallel()
	got := string(mcptool.TaskParams([]byte(`{"name":"r","arguments":{"q":"x"}}`), 1500*1e6))
	if want := `{"name":"r","arguments":{"q":"x"},"task":{"ttl":1500}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestPollIntervalClamped: the server's pollInterval, however large or
// small, gives a wait within the bounds (a huge one overflowed a Duration).
func TestPollIntervalClamped(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in   *float64
		want time.Duration
	}{
		{nil, time.Second},
		{f(500.0), 500 * time.Millisecond},
		{f(0.0), minPollInterval},
		{f(-1e300), minPollInterval},
		{f(1e300), maxPollInterval},
		{f(1e13), maxPollInterval},
	} {
		if got := pollInterval(&taskInfo{PollInterval: tc.in}); got != tc.want {
			t.Errorf("pollInterval(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
