package gate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/gate"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLiveSession drives the gate through a real go-sdk client session: a
// JSON-RPC error, an isError result and an input-required result are
// returned unchanged and none of them enters the tool's medians.
func TestLiveSession(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	type out struct {
		N int `json:"n"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "count"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, out, error) {
		if in.N < 0 {
			return nil, out{}, errors.New("negative")
		}
		return nil, out{N: in.N}, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "ask"}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"r": &mcp.ElicitParams{Message: "proceed?"}}}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	var now time.Time
	g := gate.New(session, gate.Options{Now: func() time.Time { now = now.Add(time.Millisecond); return now }})

	res, obs, err := g.Call(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 7}})
	if err != nil || res.IsError || obs.Err != nil || obs.IsError {
		t.Fatalf("count: %v %+v", err, obs)
	}
	// {"n":7} as text (the SDK fills it in) plus the structured {"n":7}.
	if want := len(`{"n":7}`) + 1 + len(`{"n":7}`); obs.Size != want || obs.Size != gate.Size(res) {
		t.Errorf("size %d, want %d", obs.Size, want)
	}

	res, obs, err = g.Call(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": -1}})
	if err != nil || !res.IsError || !obs.IsError || obs.Size != 0 {
		t.Errorf("isError: %v %+v", err, obs)
	}

	_, obs, err = g.Call(ctx, &mcp.CallToolParams{Name: "nope"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || obs.Err != err {
		t.Errorf("unknown tool: %v, observation %+v", err, obs)
	}

	res, obs, err = g.Call(ctx, &mcp.CallToolParams{Name: "ask"})
	if err != nil || !res.NeedsInput() || obs.IsError || obs.Size != 0 {
		t.Errorf("input required: %v %+v", err, obs)
	}

	for tool, want := range map[string]gate.ToolStats{
		"count": {Calls: 2, Errors: 1, Samples: 1, MedianDuration: time.Millisecond, MedianSize: 15},
		"nope":  {Calls: 1, Errors: 1},
		"ask":   {Calls: 1},
	} {
		if got, ok := g.Stats(tool); !ok || got != want {
			t.Errorf("%s: stats %+v, want %+v", tool, got, want)
		}
	}
}
