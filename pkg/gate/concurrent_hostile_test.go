package gate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileCaller answers each call by its tool's name: a huge text, a
// structuredContent that cannot be serialized, an isError, an error, a nil
// result, or nothing until the context ends.
type hostileCaller struct{ big string }

func (h hostileCaller) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	name := ""
	if p != nil {
		name = p.Name
	}
	switch {
	case strings.HasPrefix(name, "huge"):
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: h.big}, nil, &mcp.ImageContent{}}}, nil
	case strings.HasPrefix(name, "unmarshalable"):
		return &mcp.CallToolResult{StructuredContent: map[string]any{"c": make(chan int)}}, nil
	case strings.HasPrefix(name, "iserror"):
		return &mcp.CallToolResult{IsError: true}, nil
	case strings.HasPrefix(name, "err"):
		return nil, fmt.Errorf("broken")
	case strings.HasPrefix(name, "nil"):
		return nil, nil
	case strings.HasPrefix(name, "wait"):
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// One gate shared by many goroutines calling hostile tools (and tools of
// names far past MaxTools and past 256 bytes) never panics, never races
// (run with -race), keeps history for at most MaxTools tools and flags the
// huge answers.
func TestGateHostileConcurrent(t *testing.T) {
	var flagged sync.Map
	g := New(hostileCaller{big: strings.Repeat("é", 1<<20)}, Options{MaxTools: 8, Window: 4, OnFlag: func(o Observation) { flagged.Store(o.Tool, o.Reason) }})
	kinds := []string{"huge", "unmarshalable", "iserror", "err", "nil", "wait", "plain"}
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				name := kinds[(w+i)%len(kinds)]
				if i%5 == 0 {
					name += fmt.Sprint(w*100 + i) // many distinct tools
				}
				if i%13 == 0 {
					name += strings.Repeat("x", 300)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
				var p *mcp.CallToolParams
				if i%17 != 0 {
					p = &mcp.CallToolParams{Name: name}
				}
				_, obs, _ := g.Call(ctx, p)
				cancel()
				_ = obs.Flagged()
				g.Stats(name)
				g.Untracked()
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, k := range kinds {
		if _, ok := g.Stats(k); ok {
			n++
		}
	}
	g.mu.Lock()
	tracked := len(g.tools)
	g.mu.Unlock()
	if tracked > 8 {
		t.Errorf("%d tools tracked, MaxTools 8", tracked)
	}
	if _, ok := flagged.Load("huge"); !ok && n > 0 {
		if st, ok := g.Stats("huge"); ok && st.Samples > 0 {
			t.Errorf("a 1 MiB answer of huge was never flagged bloated")
		}
	}
}
