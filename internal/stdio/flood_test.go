package stdio

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// A server that answers initialize, then floods stdout with pings and never
// reads its stdin again, costs a bounded number of goroutines, and the
// connection still closes at once.
func TestServerPingFlood(t *testing.T) {
	base := runtime.NumGoroutine()
	p := start(t, sh(`read req
echo '{"jsonrpc":"2.0","id":1,"result":{}}'
yes '{"jsonrpc":"2.0","id":"p1","method":"ping"}'`))
	c := rpc.New(p.Connection(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Call(ctx, "initialize", nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	for c.ServerRequestsDropped() < 20000 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if n := c.ServerRequestsDropped(); n < 20000 {
		t.Fatalf("%d pings dropped in 10s, want the flood to go on", n)
	}
	if n := runtime.NumGoroutine(); n > base+20 {
		t.Errorf("%d goroutines during the flood, %d before", n, base)
	}
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}
