package session

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A server that ignores SIGTERM and the end of its input costs a kill
// grace to stop (measured: 16 sessions of one such server stopped one
// after another made the concurrency checks of one tool take 41 s). The
// concurrency checks stop the N sessions of a check together with CloseAll: every close
// is under way before any has finished.
func TestCloseAllClosesTogether(t *testing.T) {
	t.Parallel()
	const n = 16
	var entered sync.WaitGroup
	entered.Add(n)
	all := make(chan struct{})
	go func() { entered.Wait(); close(all) }()
	var together atomic.Int32
	sessions := make([]*Session, n)
	for i := range sessions {
		sessions[i] = &Session{cancel: func() {
			entered.Done()
			select {
			case <-all:
				together.Add(1)
			case <-time.After(2 * time.Second):
			}
		}}
		sessions[i].LateAnswers = i
	}
	late := CloseAll(sessions)
	if got := together.Load(); got != n {
		t.Errorf("%d of %d closes were under way together; the rest waited for others to finish", got, n)
	}
	if want := n * (n - 1) / 2; late != want {
		t.Errorf("late answers = %d, want %d", late, want)
	}
}
