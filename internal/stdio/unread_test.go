package stdio

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestInputReadAtExit: a server that answers a request and exits without
// reading the next one leaves that request unread in its stdin, which
// InputReadAtExit shows; a server that read the next request before exiting
// does not.
func TestInputReadAtExit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the unread bytes of a pipe are only inspected on Linux")
	}
	for _, tc := range []struct {
		name     string
		script   string
		readNext bool
	}{
		{"exits after answering", `read a; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; exit 3`, false},
		{"reads the next request, then exits", `read a; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; read b; exit 3`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, sh(tc.script))
			c := p.Connection()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, ok := p.InputReadAtExit(); ok {
				t.Fatal("InputReadAtExit is known while the server runs")
			}
			if err := c.Write(ctx, call(1, "ping", "")); err != nil {
				t.Fatalf("Write 1: %v", err)
			}
			if _, err := readTimeout(t, c); err != nil {
				t.Fatalf("Read: %v", err)
			}
			before := p.InputWritten()
			_ = c.Write(ctx, call(2, "ping", "")) // may fail: the server may be gone
			waitDone(t, p)
			n, ok := p.InputReadAtExit()
			if !ok {
				t.Fatal("InputReadAtExit unknown after the server exited by itself")
			}
			if unreadNext := n <= before; unreadNext == tc.readNext {
				t.Errorf("read at exit %d, written before the second request %d (total %d): the second request read = %v, want %v",
					n, before, p.InputWritten(), !unreadNext, tc.readNext)
			}
		})
	}
}
