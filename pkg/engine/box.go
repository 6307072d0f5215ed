package engine

import (
	"slices"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// boxes holds the box of a run: chosen once, when the first server is
// started, shared by every session of the run (both eras of --era both),
// and closed when the run ends.
type boxes struct {
	once sync.Once
	plan *box.Plan
}

// boxed gives c a box for its stdio servers, unless it has one, and returns
// what closes it: every entry point that starts servers ([Run], [Plan],
// [Replay]) calls it, so none starts a server outside the box.
func (c *Config) boxed() (close func()) {
	if len(c.Command) == 0 || c.boxes != nil {
		return func() {}
	}
	c.boxes = &boxes{}
	return c.boxes.close
}

// get returns the run's box for a server started with path, env and dir,
// choosing it on the first call.
func (b *boxes) get(cfg Config, env []string) *box.Plan {
	if b == nil {
		return nil
	}
	b.once.Do(func() {
		path, err := stdio.Resolve(cfg.Command[0], env, cfg.Cwd)
		if err != nil {
			path = "" // Start says why
		}
		userHome := slices.ContainsFunc(cfg.Env, func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
		b.plan = box.New(box.Options{Off: cfg.NoBox, Dir: cfg.Cwd, Path: path, Args: cfg.Command[1:], Env: env, UserHome: userHome})
	})
	return b.plan
}

// close removes what the run's box made.
func (b *boxes) close() {
	if b != nil && b.plan != nil {
		b.plan.Close()
	}
}

// run describes the box for the report: nil for a run that started no
// server (an HTTP target).
func (b *boxes) run() *report.Run {
	if b == nil || b.plan == nil {
		return nil
	}
	return &report.Run{Box: b.plan.Active(), Summary: b.plan.Summary(), Containment: b.plan.Lines(), Warning: b.plan.Warning()}
}

// withHome puts the box's private home in env, when it made one.
func withHome(env []string, plan *box.Plan) []string {
	home := plan.Home()
	if home == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}
