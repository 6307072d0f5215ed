package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// A write stuck on a server that does not read its stdin holds up the
// writes behind it no longer than their own deadline: a call behind a stuck
// answer to a server request gives up on time.
func TestWriteWaitsNoLongerThanItsContext(t *testing.T) {
	p := start(t, sh(`sleep 60`))
	c := rpc.New(p.Connection(), nil)
	defer c.Close()
	big := json.RawMessage(`{"x":"` + strings.Repeat("x", 1<<20) + `"}`)
	stuck, cancelStuck := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancelStuck()
	go func() { _, _ = c.Call(stuck, "tools/call", big) }() // fills the pipe, then blocks
	time.Sleep(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := c.Call(ctx, "ping", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v, want its deadline", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("a call with a 200ms deadline took %v behind a stuck write", d)
	}
}
