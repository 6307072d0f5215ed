package concurrency

import (
	"testing"
	"testing/synctest"
	"time"
)

// wrongKind tells a tools/list answer from the others.
func TestWrongKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, raw string
		wrong       bool
	}{
		{"tools/list", `{"tools":[]}`, false},
		{"tools/list", `{"content":[]}`, true},
		{"tools/call", `{"content":[]}`, false},
		{"tools/call", `{"tools":[]}`, true},
		{"tools/call", `[]`, true},
		{"ping", `{}`, false},
		{"ping", `{"content":[]}`, true},
	} {
		if got := wrongKind(tc.method, []byte(tc.raw)) != ""; got != tc.wrong {
			t.Errorf("wrongKind(%s, %s) = %v, want %v", tc.method, tc.raw, got, tc.wrong)
		}
	}
}

// A stallWatch gives up on the requests in flight only once no answer came
// for a whole limit: answers that keep coming, each within the limit, keep
// them waiting however long they take together.
func TestStallWatch(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newStallWatch(t.Context(), time.Second)
		for range 5 {
			time.Sleep(900 * time.Millisecond)
			w.progress()
		}
		synctest.Wait()
		if w.stalled() || w.ctx.Err() != nil {
			t.Fatalf("given up on after 4.5s of answers each within 1s (stalled %v, ctx %v)", w.stalled(), w.ctx.Err())
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if !w.stalled() || w.ctx.Err() == nil {
			t.Fatalf("not given up on after 1s without an answer (stalled %v, ctx %v)", w.stalled(), w.ctx.Err())
		}
		w.stop()
	})
}

// Stopped once every request returned, a stallWatch is no stall, though its
// ctx ends.
func TestStallWatchStop(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newStallWatch(t.Context(), time.Second)
		time.Sleep(500 * time.Millisecond)
		w.stop()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if w.stalled() || w.ctx.Err() == nil {
			t.Fatalf("stopped watch: stalled %v, ctx %v; want no stall and its ctx ended", w.stalled(), w.ctx.Err())
		}
	})
}
