package engine

import (
	"context"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Replay sends one recorded case again to the target of cfg and judges the
// answer the way [Run] would. The tool must still be listed by the server.
func Replay(ctx context.Context, cfg Config, toolName string, c report.Case) (report.Case, error) {
	if err := cfg.Validate(); err != nil {
		return report.Case{}, err
	}
	cfg = cfg.withDefaults()
	st, err := start(ctx, cfg)
	if err != nil {
		return report.Case{}, err
	}
	r := &runner{cfg: cfg, cn: st.cn, s: st.s, leak: st.leak}
	defer r.closeSession()
	for _, t := range st.tools {
		if t.Name != toolName {
			continue
		}
		gc := casegen.Case{ID: c.ID, Tool: toolName, Kind: casegen.Kind(c.Kind), Pointer: c.Pointer, Nested: c.Nested, Arguments: c.Arguments, Forbidden: c.Forbidden}
		rc := report.Case{ID: c.ID, Kind: c.Kind, Pointer: c.Pointer, Nested: c.Nested, Forbidden: c.Forbidden, Arguments: c.Arguments, Flags: []string{}}
		r.runCase(ctx, t, gc, &rc, false, t.outputValidator())
		return rc, nil
	}
	return report.Case{}, fmt.Errorf("the server no longer lists tool %q", toolName)
}
