// Command repeat-timing is a fixture server for --repeat: its tools answer
// their valid call at different speeds on different runs, so that the median
// of the runs, not the first run, decides the slow flag.
//   - warm_lookup (read-only): the first valid call takes 600 ms, later ones
//     answer at once (p50 fast: not slow).
//   - cold_lookup (read-only): the first valid call answers at once, later
//     ones take 600 ms (p50 slow).
//   - idem_store (idempotentHint only): answers at once; repeated.
//   - plain_store (no hint): answers at once; its error answers to bad input
//     say how many valid calls it got, which must be 1.
//   - crash_on_repeat (read-only): the second valid call exits the process.
//   - hang_on_repeat (read-only): the second valid call never answers.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("repeat-timing", "Fixture: tools whose valid calls differ from run to run.", func(s *mcp.Server) {
		var warm, cold, plain, crash, hang atomic.Int64
		sdkserver.AddNameTool(s, "warm_lookup", func(ctx context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			if warm.Add(1) == 1 {
				sleep(ctx, 600*time.Millisecond)
			}
			return sdkserver.Text("found"), nil
		})
		sdkserver.AddNameTool(s, "cold_lookup", func(ctx context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			if cold.Add(1) > 1 {
				sleep(ctx, 600*time.Millisecond)
			}
			return sdkserver.Text("found"), nil
		})
		sdkserver.AddNameTool(s, "crash_on_repeat", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			if crash.Add(1) == 2 {
				fmt.Fprintln(os.Stderr, "crash_on_repeat: second call, exiting")
				os.Exit(3)
			}
			return sdkserver.Text("found"), nil
		})
		sdkserver.AddNameTool(s, "hang_on_repeat", func(ctx context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			if hang.Add(1) == 2 {
				<-ctx.Done() // until the client cancels
				return nil, ctx.Err()
			}
			return sdkserver.Text("found"), nil
		})
		addStore(s, "idem_store", &mcp.ToolAnnotations{IdempotentHint: true}, nil)
		addStore(s, "plain_store", &mcp.ToolAnnotations{}, &plain)
	})
}

// addStore registers a name tool that is not read-only; calls counts its
// valid calls when not nil, and its error answers say the count.
func addStore(s *mcp.Server, name string, ann *mcp.ToolAnnotations, calls *atomic.Int64) {
	ann.Title = name
	ann.DestructiveHint = new(bool)
	s.AddTool(&mcp.Tool{
		Name:        name,
		Description: "Store a name; a fixture tool that is not read-only.",
		Annotations: ann,
		InputSchema: json.RawMessage(sdkserver.NameToolSchema),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Name *string `json:"name"`
		}
		valid := json.Unmarshal(req.Params.Arguments, &args) == nil && args.Name != nil && len([]rune(*args.Name)) <= 20
		var raw map[string]json.RawMessage
		if json.Unmarshal(req.Params.Arguments, &raw) != nil || len(raw) != 1 {
			valid = false
		}
		if !valid {
			n := int64(0)
			if calls != nil {
				n = calls.Load()
			}
			return sdkserver.ToolError(fmt.Sprintf("store needs one name (valid calls so far: %d)", n)), nil
		}
		if calls != nil {
			calls.Add(1)
		}
		return sdkserver.Text("stored"), nil
	})
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}
