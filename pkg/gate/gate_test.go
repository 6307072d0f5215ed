package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clock is a fake clock the fake session advances by the call's scripted
// duration, so no test depends on the machine's speed.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// answer is one scripted call: how long it takes and what it returns.
type answer struct {
	d   time.Duration
	res *mcp.CallToolResult
	err error
}

// session answers every call with answerFn(tool), advancing clk.
type session struct {
	clk      *clock
	answerFn func(tool string) answer
}

func (s *session) CallTool(_ context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	a := s.answerFn(p.Name)
	s.clk.Advance(a.d)
	return a.res, a.err
}

func text(n int) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", n-1)}}}
}

// script returns a gate whose session answers the calls of each tool in
// order from answers[tool].
func script(opts Options, answers map[string][]answer) *Gate {
	clk := &clock{t: time.Unix(0, 0)}
	var mu sync.Mutex
	next := map[string]int{}
	opts.Now = clk.Now
	return New(&session{clk: clk, answerFn: func(tool string) answer {
		mu.Lock()
		defer mu.Unlock()
		a := answers[tool][next[tool]]
		next[tool]++
		return a
	}}, opts)
}

func call(t *testing.T, g *Gate, tool string) Observation {
	t.Helper()
	_, obs, _ := g.Call(context.Background(), &mcp.CallToolParams{Name: tool})
	return obs
}

func repeat(a answer, n int) []answer {
	out := make([]answer, n)
	for i := range out {
		out[i] = a
	}
	return out
}

func TestThresholds(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name        string
		opts        Options
		history     []answer
		last        answer
		slow, bloat bool
		reason      string
	}{
		{"usual", Options{}, repeat(answer{d: 10 * ms, res: text(50)}, 3), answer{d: 12 * ms, res: text(60)}, false, false, ""},
		{"absolute slow on first call", Options{}, nil, answer{d: 6 * time.Second, res: text(10)}, true, false,
			"slow: 6s, above SlowAfter 5s"},
		{"absolute slow at the threshold is not slow", Options{}, nil, answer{d: 5 * time.Second, res: text(10)}, false, false, ""},
		{"absolute bloat on first call", Options{}, nil, answer{d: ms, res: text(20001)}, false, true,
			"bloated: 20001 characters, above BloatChars 20000"},
		{"custom thresholds", Options{SlowAfter: 100 * ms, BloatChars: 100}, nil, answer{d: 101 * ms, res: text(101)}, true, true,
			"slow: 101ms, above SlowAfter 100ms; bloated: 101 characters, above BloatChars 100"},
		{"absolute rules off", Options{SlowAfter: -1, BloatChars: -1}, nil, answer{d: time.Hour, res: text(1e6)}, false, false, ""},
		{"relative slow after 3 calls", Options{}, repeat(answer{d: 100 * ms, res: text(50)}, 3), answer{d: 301 * ms, res: text(50)}, true, false,
			"slow: 301ms, over 3× the tool's median of 100ms (3 calls)"},
		{"3× exactly is not slow", Options{}, repeat(answer{d: 100 * ms, res: text(50)}, 3), answer{d: 300 * ms, res: text(50)}, false, false, ""},
		{"no relative rule after 2 calls", Options{}, repeat(answer{d: 100 * ms, res: text(50)}, 2), answer{d: 4 * time.Second, res: text(5000)}, false, false, ""},
		{"relative bloat after 3 calls", Options{}, repeat(answer{d: ms, res: text(3000)}, 3), answer{d: ms, res: text(9001)}, false, true,
			"bloated: 9001 characters, over 3× the tool's median of 3000 (3 calls)"},
		{"under the noise floors", Options{}, repeat(answer{d: 2 * ms, res: text(40)}, 5), answer{d: 200 * ms, res: text(900)}, false, false, ""},
		{"a few kilobytes is under the bloat floor", Options{}, repeat(answer{d: ms, res: text(40)}, 5), answer{d: ms, res: text(6000)}, false, false, ""},
		{"floors lowered", Options{MinSlow: ms, MinBloatChars: 1}, repeat(answer{d: 2 * ms, res: text(40)}, 5), answer{d: 200 * ms, res: text(900)}, true, true,
			"slow: 200ms, over 3× the tool's median of 2ms (5 calls); bloated: 900 characters, over 3× the tool's median of 40 (5 calls)"},
		{"floors off", Options{MinSlow: -1, MinBloatChars: -1}, repeat(answer{d: 2 * ms, res: text(40)}, 5), answer{d: 7 * ms, res: text(121)}, true, true,
			"slow: 7ms, over 3× the tool's median of 2ms (5 calls); bloated: 121 characters, over 3× the tool's median of 40 (5 calls)"},
		{"median not mean", Options{}, []answer{{d: 100 * ms, res: text(50)}, {d: 100 * ms, res: text(50)}, {d: 4 * time.Second, res: text(50)}}, answer{d: 350 * ms, res: text(50)}, true, false,
			"slow: 350ms, over 3× the tool's median of 100ms (3 calls)"},
		{"even count takes the middle two", Options{}, []answer{{d: 100 * ms, res: text(50)}, {d: 100 * ms, res: text(50)}, {d: 200 * ms, res: text(50)}, {d: 200 * ms, res: text(50)}}, answer{d: 451 * ms, res: text(50)}, true, false,
			"slow: 451ms, over 3× the tool's median of 150ms (4 calls)"},
		{"absolute wins over relative in the reason", Options{}, repeat(answer{d: 100 * ms, res: text(50)}, 3), answer{d: 6 * time.Second, res: text(50)}, true, false,
			"slow: 6s, above SlowAfter 5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := script(tt.opts, map[string][]answer{"t": append(tt.history, tt.last)})
			for range tt.history {
				if obs := call(t, g, "t"); obs.Flagged() {
					t.Fatalf("history call flagged: %+v", obs)
				}
			}
			obs := call(t, g, "t")
			if obs.Slow != tt.slow || obs.Bloated != tt.bloat || obs.Reason != tt.reason {
				t.Errorf("got slow=%v bloated=%v reason %q, want %v %v %q", obs.Slow, obs.Bloated, obs.Reason, tt.slow, tt.bloat, tt.reason)
			}
		})
	}
}

func TestPerToolIsolation(t *testing.T) {
	ms := time.Millisecond
	g := script(Options{}, map[string][]answer{
		"fast": append(repeat(answer{d: 100 * ms, res: text(50)}, 3), answer{d: 400 * ms, res: text(50)}),
		"slow": repeat(answer{d: 400 * ms, res: text(50)}, 4),
	})
	for range 3 {
		call(t, g, "fast")
		call(t, g, "slow")
	}
	if obs := call(t, g, "slow"); obs.Flagged() {
		t.Errorf("400ms is usual for the slow tool: %+v", obs)
	}
	if obs := call(t, g, "fast"); !obs.Slow || obs.Tool != "fast" {
		t.Errorf("400ms is 4× the fast tool's median: %+v", obs)
	}
}

func TestErrorsAreNotSampled(t *testing.T) {
	ms := time.Millisecond
	rpcErr := &jsonrpc.Error{Code: -32602, Message: "bad"}
	isErr := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("e", 5000)}}}
	g := script(Options{}, map[string][]answer{"t": {
		{d: 100 * ms, res: text(50)},
		{d: 1 * ms, err: rpcErr},
		{d: 1 * ms, res: isErr},
		{d: 100 * ms, res: text(50)},
		{d: 1 * ms, err: rpcErr},
		{d: 400 * ms, res: text(50)}, // third sample: the relative rule is not on yet
		{d: 7 * time.Second, err: rpcErr},
	}})
	ctx := context.Background()
	var gotErrs []error
	var gotRes []*mcp.CallToolResult
	var obss []Observation
	for range 7 {
		res, obs, err := g.Call(ctx, &mcp.CallToolParams{Name: "t"})
		gotRes, gotErrs, obss = append(gotRes, res), append(gotErrs, err), append(obss, obs)
	}
	if gotErrs[1] != rpcErr || obss[1].Err != rpcErr || gotRes[1] != nil {
		t.Errorf("JSON-RPC error not returned unchanged: %v %v", gotErrs[1], obss[1].Err)
	}
	if gotRes[2] != isErr || !obss[2].IsError || obss[2].Size != 0 || obss[2].Bloated {
		t.Errorf("isError result: res %p obs %+v", gotRes[2], obss[2])
	}
	if obss[5].Flagged() {
		t.Errorf("errors counted toward the three calls: %+v", obss[5])
	}
	if !obss[6].Slow || obss[6].Err != rpcErr {
		t.Errorf("a slow error is still slow: %+v", obss[6])
	}
	st, ok := g.Stats("t")
	want := ToolStats{Calls: 7, Errors: 4, Samples: 3, MedianDuration: 100 * ms, MedianSize: 50}
	if !ok || st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
}

func TestResultUnchanged(t *testing.T) {
	res := text(30000)
	g := script(Options{}, map[string][]answer{"t": {{d: time.Minute, res: res}}})
	var flagged []Observation
	g.opts.OnFlag = func(o Observation) { flagged = append(flagged, o) }
	got, err := g.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	if got != res || err != nil {
		t.Fatalf("CallTool changed the answer: %p %v", got, err)
	}
	if len(flagged) != 1 || !flagged[0].Slow || !flagged[0].Bloated || flagged[0].Size != 30000 {
		t.Errorf("OnFlag got %+v", flagged)
	}
}

func TestOnFlagOnlyWhenFlagged(t *testing.T) {
	g := script(Options{}, map[string][]answer{"t": repeat(answer{d: time.Millisecond, res: text(5)}, 5)})
	g.opts.OnFlag = func(o Observation) { t.Errorf("OnFlag for a usual call: %+v", o) }
	for range 5 {
		call(t, g, "t")
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want int
	}{
		{"nil", nil, 0},
		{"one text block counts its newline", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "héllo"}}}, 6},
		{"two blocks", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ab"}, &mcp.TextContent{Text: "c"}}}, 5},
		{"images do not count", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: make([]byte, 1000), MIMEType: "image/png"}}}, 0},
		{"structured, compact and unescaped", &mcp.CallToolResult{StructuredContent: map[string]any{"a": "<b>"}}, len(`{"a":"<b>"}`)},
		{"both", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"n":1}`}}, StructuredContent: map[string]any{"n": 1}}, 8 + 7},
	}
	for _, tt := range tests {
		if got := Size(tt.res); got != tt.want {
			t.Errorf("%s: Size = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestWindowBound(t *testing.T) {
	ms := time.Millisecond
	// 10 old calls of 1 s, then 5 of 100 ms: with a window of 5 the median
	// is of the recent five only.
	answers := append(repeat(answer{d: time.Second, res: text(50)}, 10), repeat(answer{d: 100 * ms, res: text(50)}, 5)...)
	answers = append(answers, answer{d: 400 * ms, res: text(50)})
	g := script(Options{Window: 5}, map[string][]answer{"t": answers})
	for range 15 {
		call(t, g, "t")
	}
	st, _ := g.Stats("t")
	if st.Samples != 5 || st.MedianDuration != 100*ms || st.Calls != 15 {
		t.Errorf("stats %+v", st)
	}
	if h := g.tools["t"]; cap(h.durs) > 2*5 || cap(h.sizes) > 2*5 {
		t.Errorf("ring grew past its window: cap %d, %d", cap(h.durs), cap(h.sizes))
	}
	if obs := call(t, g, "t"); !obs.Slow {
		t.Errorf("400ms over the recent median of 100ms: %+v", obs)
	}
}

func TestToolBound(t *testing.T) {
	const n = 5000
	clk := &clock{}
	g := New(&session{clk: clk, answerFn: func(string) answer { return answer{d: time.Second * 6, res: text(5)} }},
		Options{MaxTools: 10, Now: clk.Now})
	for i := range n {
		if obs := call(t, g, fmt.Sprintf("tool-%d", i)); !obs.Slow {
			t.Fatalf("an untracked tool is still judged by the absolute threshold: %+v", obs)
		}
	}
	if len(g.tools) != 10 || g.Untracked() != n-10 {
		t.Errorf("tracked %d tools, untracked %d calls", len(g.tools), g.Untracked())
	}
	if _, ok := g.Stats("tool-0"); !ok {
		t.Error("the first tools keep their history")
	}
	if _, ok := g.Stats("tool-10"); ok {
		t.Error("tool-10 is over MaxTools")
	}
}

func TestLongNameNotTracked(t *testing.T) {
	clk := &clock{}
	g := New(&session{clk: clk, answerFn: func(string) answer { return answer{res: text(5)} }}, Options{Now: clk.Now})
	long := strings.Repeat("n", maxNameBytes+1)
	call(t, g, long)
	if _, ok := g.Stats(long); ok || g.Untracked() != 1 {
		t.Error("a name over 256 bytes is not tracked")
	}
}

func TestNilParams(t *testing.T) {
	clk := &clock{}
	g := New(Caller(callerFunc(func(context.Context, *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return nil, errors.New("no tool")
	})), Options{Now: clk.Now})
	if _, obs, err := g.Call(context.Background(), nil); err == nil || obs.Tool != "" || obs.Err != err {
		t.Errorf("nil params: %+v %v", obs, err)
	}
}

type callerFunc func(context.Context, *mcp.CallToolParams) (*mcp.CallToolResult, error)

func (f callerFunc) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return f(ctx, p)
}

// TestConcurrent calls tools from many goroutines at once; run with -race.
func TestConcurrent(t *testing.T) {
	clk := &clock{}
	var flags sync.Map
	g := New(&session{clk: clk, answerFn: func(tool string) answer {
		if strings.HasSuffix(tool, "err") {
			return answer{d: time.Millisecond, err: errors.New("boom")}
		}
		return answer{d: time.Millisecond, res: text(10)}
	}}, Options{Now: clk.Now, Window: 8, OnFlag: func(o Observation) { flags.Store(o.Tool, o) }})
	const workers, calls = 16, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				tool := fmt.Sprintf("t%d", (w+i)%4)
				if i%10 == 0 {
					tool += "err"
				}
				if _, err := g.CallTool(context.Background(), &mcp.CallToolParams{Name: tool}); (err != nil) != strings.HasSuffix(tool, "err") {
					t.Errorf("%s: %v", tool, err)
				}
				g.Stats(tool)
			}
		})
	}
	wg.Wait()
	var total, errs uint64
	for i := range 4 {
		for _, suffix := range []string{"", "err"} {
			if st, ok := g.Stats(fmt.Sprintf("t%d%s", i, suffix)); ok {
				total += st.Calls
				errs += st.Errors
				if st.Samples > 8 {
					t.Errorf("t%d%s: %d samples over a window of 8", i, suffix, st.Samples)
				}
			}
		}
	}
	if total != workers*calls || errs != workers*calls/10 {
		t.Errorf("recorded %d calls and %d errors, want %d and %d", total, errs, workers*calls, workers*calls/10)
	}
}
