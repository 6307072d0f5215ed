package gate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [Options]. The thresholds and noise floors are the audit's
// (--slow-ms, --bloat-chars, and the floors of its relative rule in
// pkg/engine/perf.go).
const (
	DefaultSlowAfter     = 5 * time.Second
	DefaultBloatChars    = 20000
	DefaultMinSlow       = 250 * time.Millisecond
	DefaultMinBloatChars = 8000
	DefaultWindow        = 100
	DefaultMaxTools      = 1024
)

// The relative rule: an answer over factor × the tool's median, once the
// tool has minHistory earlier answers.
const (
	factor     = 3
	minHistory = 3
)

// maxNameBytes bounds the tool names the gate keeps history for: the MCP
// specification asks for names of 1–128 characters, and a hostile server's
// megabyte-long name must not become a map key.
const maxNameBytes = 256

// Caller is what the gate wraps: [*mcp.ClientSession] satisfies it, and so
// does [*Gate], so gates and other wrappers compose.
type Caller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// Options configure a [Gate]. The zero value is usable: every zero field takes
// its default, and a negative threshold or floor turns that rule or floor off.
type Options struct {
	// SlowAfter flags any call that takes longer (default 5 s).
	SlowAfter time.Duration
	// BloatChars flags any answer larger than this many characters, measured
	// by [Size] (default 20000).
	BloatChars int
	// MinSlow and MinBloatChars are the noise floors of the relative rule:
	// 3× a median of 2 ms is scheduling jitter, and 3× a 40-character median
	// is still a short answer. The rule flags nothing below them (defaults
	// 250 ms and 8000 characters).
	MinSlow       time.Duration
	MinBloatChars int
	// Window is how many recent answers of each tool the medians are taken
	// over (default 100).
	Window int
	// MaxTools caps the distinct tools the gate keeps history for (default
	// 1024). Calls to further tools are still judged by the absolute
	// thresholds and counted by [Gate.Untracked]; the tools already tracked
	// keep their history.
	MaxTools int
	// OnFlag, when set, receives every flagged observation, synchronously,
	// after the call returns and before CallTool does; it must be safe for
	// concurrent use when the agent calls tools concurrently.
	OnFlag func(Observation)
	// Now is the clock calls are timed with (default [time.Now]); tests and
	// examples inject one to be independent of the machine's speed.
	Now func() time.Time
}

// Observation is the gate's verdict on one call.
type Observation struct {
	Tool     string
	Duration time.Duration
	// Size is the answer's size by [Size]; 0 for a call that failed.
	Size int
	// Slow and Bloated say the call was unusual; Reason says why, one clause
	// per flag joined by "; " (empty when neither is set).
	Slow    bool
	Bloated bool
	Reason  string
	// IsError is set for a result with isError, and Err for a call that
	// returned an error (a JSON-RPC error, a closed session, a cancelled
	// context). Neither kind of call enters the tool's medians.
	IsError bool
	Err     error
}

// Flagged reports whether the call was slow or bloated.
func (o Observation) Flagged() bool { return o.Slow || o.Bloated }

// ToolStats is what the gate keeps of one tool.
type ToolStats struct {
	Calls  uint64 // every call, answered or not
	Errors uint64 // calls that returned an error or an isError result
	// Samples is how many answers the medians are over (at most Window).
	Samples        int
	MedianDuration time.Duration
	MedianSize     float64
}

// Gate times and sizes the tool calls made through it. It is safe for
// concurrent use; create one with [New].
//
// Every answered call enters its tool's history, flagged or not: the gate
// asks whether a call is unusual for the tool's recent calls, so a tool that
// has become steadily slower stops being flagged once its median catches up.
type Gate struct {
	caller Caller
	opts   Options

	mu        sync.Mutex
	tools     map[string]*history
	untracked uint64
}

// New returns a gate that makes its calls through caller, usually a
// [*mcp.ClientSession].
func New(caller Caller, opts Options) *Gate {
	if opts.SlowAfter == 0 {
		opts.SlowAfter = DefaultSlowAfter
	}
	if opts.BloatChars == 0 {
		opts.BloatChars = DefaultBloatChars
	}
	if opts.MinSlow == 0 {
		opts.MinSlow = DefaultMinSlow
	}
	if opts.MinBloatChars == 0 {
		opts.MinBloatChars = DefaultMinBloatChars
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.MaxTools <= 0 {
		opts.MaxTools = DefaultMaxTools
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Gate{caller: caller, opts: opts, tools: make(map[string]*history)}
}

// CallTool makes the call through the wrapped session and returns its result
// and error unchanged; the verdict goes to [Options.OnFlag]. It has the
// signature of [*mcp.ClientSession.CallTool], so the gate drops in where an
// agent calls the session. Use [Gate.Call] to get the verdict back.
func (g *Gate) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	res, _, err := g.Call(ctx, params)
	return res, err
}

// Call is [Gate.CallTool] that also returns the verdict. The result and error
// are the session's, unchanged, whatever the verdict.
func (g *Gate) Call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, Observation, error) {
	var name string
	if params != nil {
		name = params.Name
	}
	start := g.opts.Now()
	res, err := g.caller.CallTool(ctx, params)
	obs := Observation{Tool: name, Duration: g.opts.Now().Sub(start), Err: err}
	// An input-required result (SEP-2322, when the client's automatic retry
	// is off) is half a round trip, not an answer: it is judged by duration
	// like an error, but kept out of the medians and not counted an error.
	answered := err == nil && res != nil && !res.IsError && !res.NeedsInput()
	if err == nil && res != nil {
		obs.IsError = res.IsError
		if answered {
			obs.Size = Size(res)
		}
	}
	g.judge(&obs, answered)
	if obs.Flagged() && g.opts.OnFlag != nil {
		g.opts.OnFlag(obs)
	}
	return res, obs, err
}

// judge sets the flags of obs against the tool's history before this call,
// then records the call. Both happen under one lock, so concurrent calls of
// one tool each see the history of the calls that returned before them.
func (g *Gate) judge(obs *Observation, answered bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.history(obs.Tool)
	var medDur time.Duration
	var medSize float64
	n := 0
	if h != nil {
		medDur, medSize = h.medians()
		n = len(h.durs)
	}
	relative := n >= minHistory
	var why []string
	switch d := obs.Duration; {
	case g.opts.SlowAfter > 0 && d > g.opts.SlowAfter:
		obs.Slow = true
		why = append(why, fmt.Sprintf("slow: %v, above SlowAfter %v", d, g.opts.SlowAfter))
	case relative && d >= g.opts.MinSlow && float64(d) > factor*float64(medDur):
		obs.Slow = true
		why = append(why, fmt.Sprintf("slow: %v, over 3× the tool's median of %v (%d calls)", d, medDur, n))
	}
	if answered {
		switch s := obs.Size; {
		case g.opts.BloatChars > 0 && s > g.opts.BloatChars:
			obs.Bloated = true
			why = append(why, fmt.Sprintf("bloated: %d characters, above BloatChars %d", s, g.opts.BloatChars))
		case relative && s >= g.opts.MinBloatChars && float64(s) > factor*medSize:
			obs.Bloated = true
			why = append(why, fmt.Sprintf("bloated: %d characters, over 3× the tool's median of %.0f (%d calls)", s, medSize, n))
		}
	}
	obs.Reason = strings.Join(why, "; ")
	if h == nil {
		g.untracked++
		return
	}
	h.calls++
	switch {
	case answered:
		h.add(obs.Duration, obs.Size, g.opts.Window)
	case obs.Err != nil || obs.IsError:
		h.errors++
	}
}

// history is the tool's history, created on its first call while fewer than
// MaxTools are tracked; nil for a tool the gate does not track. g.mu is held.
func (g *Gate) history(tool string) *history {
	if h, ok := g.tools[tool]; ok {
		return h
	}
	if len(tool) > maxNameBytes || len(g.tools) >= g.opts.MaxTools {
		return nil
	}
	h := &history{}
	g.tools[strings.Clone(tool)] = h
	return h
}

// Stats returns what the gate keeps of tool; ok is false for a tool it does
// not track (never called, over MaxTools, or a name over 256 bytes).
func (g *Gate) Stats(tool string) (stats ToolStats, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.tools[tool]
	if !ok {
		return ToolStats{}, false
	}
	stats = ToolStats{Calls: h.calls, Errors: h.errors, Samples: len(h.durs)}
	stats.MedianDuration, stats.MedianSize = h.medians()
	return stats, true
}

// Untracked is the number of calls the gate judged by the absolute thresholds
// alone because it keeps no history of their tool: MaxTools were already
// tracked, or the name was over 256 bytes.
func (g *Gate) Untracked() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.untracked
}
