package gate_test

import (
	"context"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/gate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeClock is advanced by the tool itself, so the example's durations do
// not depend on the machine's speed.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// connect starts an in-memory server with a "search" tool that takes 20 ms,
// except its fifth call, which takes 900 ms, and returns a client session
// connected to it.
func connect(ctx context.Context, clock *fakeClock) *mcp.ClientSession {
	server := mcp.NewServer(&mcp.Implementation{Name: "search-server", Version: "v1"}, nil)
	calls := 0
	mcp.AddTool(server, &mcp.Tool{Name: "search"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Query string `json:"query"`
	}) (*mcp.CallToolResult, any, error) {
		calls++
		if calls == 5 {
			clock.Advance(900 * time.Millisecond)
		} else {
			clock.Advance(20 * time.Millisecond)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3 results for " + in.Query}}}, nil, nil
	})
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverTransport, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	return session
}

// An agent calls a tool through the gate and decides what to do with a call
// that is unusual for that tool: the fifth call is 45× the tool's median.
func Example() {
	ctx := context.Background()
	clock := &fakeClock{}
	session := connect(ctx, clock)
	defer session.Close()

	g := gate.New(session, gate.Options{Now: clock.Now})
	for i := 1; i <= 5; i++ {
		res, obs, err := g.Call(ctx, &mcp.CallToolParams{
			Name:      "search",
			Arguments: map[string]any{"query": "go"},
		})
		if err != nil {
			log.Fatal(err)
		}
		// obs.Size counts each text block with the newline the audit joins
		// blocks by: 17 for the 16 characters of "3 results for go".
		fmt.Printf("call %d: %v, %d characters, %q\n", i, obs.Duration, obs.Size, res.Content[0].(*mcp.TextContent).Text)
		if obs.Flagged() {
			fmt.Println("  flagged:", obs.Reason)
		}
	}
	// Output:
	// call 1: 20ms, 17 characters, "3 results for go"
	// call 2: 20ms, 17 characters, "3 results for go"
	// call 3: 20ms, 17 characters, "3 results for go"
	// call 4: 20ms, 17 characters, "3 results for go"
	// call 5: 900ms, 17 characters, "3 results for go"
	//   flagged: slow: 900ms, over 3× the tool's median of 20ms (4 calls)
}

// The gate drops in where the agent called the session; flagged calls go to
// OnFlag.
func ExampleOptions_onFlag() {
	ctx := context.Background()
	clock := &fakeClock{}
	session := connect(ctx, clock)
	defer session.Close()

	var caller gate.Caller = gate.New(session, gate.Options{
		Now: clock.Now,
		OnFlag: func(obs gate.Observation) {
			fmt.Printf("%s was unusual (%s)\n", obs.Tool, obs.Reason)
		},
	})
	for range 5 {
		if _, err := caller.CallTool(ctx, &mcp.CallToolParams{
			Name:      "search",
			Arguments: map[string]any{"query": "mcp"},
		}); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// search was unusual (slow: 900ms, over 3× the tool's median of 20ms (4 calls))
}
