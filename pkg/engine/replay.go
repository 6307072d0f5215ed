package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// ErrArgumentsChanged is wrapped by [Replay] when the arguments of a
// compacted case cannot be regenerated as the report recorded them.
var ErrArgumentsChanged = errors.New("the tool's schema changed since the report")

// Replay sends one recorded case again to the target of cfg and judges the
// answer the way [Run] would. The tool must still be listed by the server.
// After an answer, a ping tells whether the server exited right after
// answering without reading it: the case is then a crash, as in the run.
//
// A case whose arguments the report compacted (see
// [report.CompactArguments]) is regenerated from the tool's inputSchema as
// the server lists it now, with cfg's seed, case budget, profile and
// examples: these must be the ones of the recorded run. For a tool whose
// valid call the run learned, cfg.Learned holds the learned arguments, the
// base of its mutations. A learned valid case itself is sent with the
// arguments it recorded. The regenerated
// arguments must match the recorded digest, or Replay returns an error
// wrapping [ErrArgumentsChanged].
func Replay(ctx context.Context, cfg Config, toolName string, c report.Case) (report.Case, error) {
	if err := cfg.Validate(); err != nil {
		return report.Case{}, err
	}
	if c.Kind == report.KindSecurity {
		// Its evidence (canary tokens, the listener's port, paths in the
		// scratch area) belonged to its run: judged without them, a flaw
		// would read as fixed.
		return report.Case{}, fmt.Errorf("%w: %s is a security case, judged by evidence made for its run (canary files, a listener): run the shell reproducer of its finding, which makes them again, or audit the server again", ErrConfig, c.ID)
	}
	cfg = cfg.withDefaults()
	if cfg.Era == EraBoth {
		// One case is replayed in one era: the one negotiated, unless the
		// caller names it (as an era_difference reproducer does).
		cfg.Era = EraAuto
	}
	// The scratch area, for a target that names it; a replayed case is
	// judged as the oracle judges it, without the security cases'
	// canaries and listener.
	cfg.NoSecurity = true
	cfg, removeScratch, err := cfg.withScratch()
	if err != nil {
		return report.Case{}, err
	}
	defer removeScratch()
	defer cfg.boxed()()
	st, err := start(ctx, cfg)
	if err != nil {
		return report.Case{}, err
	}
	cfg.Progress = redactingProgress(cfg.Progress, keepingNames(st.leak, st.tools))
	r := &runner{cfg: cfg, cn: st.cn, s: st.s, leak: st.leak}
	defer r.closeSession()
	for _, t := range st.tools {
		if t.Name != toolName {
			continue
		}
		args := c.Arguments
		if c.ArgumentsDigest != nil {
			if args, err = regenerate(cfg, t, c); err != nil {
				return report.Case{}, err
			}
		}
		gc := casegen.Case{ID: c.ID, Tool: toolName, Kind: casegen.Kind(c.Kind), Pointer: c.Pointer, Nested: c.Nested, Arguments: args, Forbidden: c.Forbidden}
		rc := reportCase(gc)
		r.owner = &callRef{tool: toolName, c: &rc}
		r.runCase(ctx, t, gc, &rc, false, t.OutputValidator())
		r.owner = nil
		if !rc.Verdict.Failure() {
			// A server that exits right after answering crashed on the
			// call, as the run found when the next call never reached it.
			if g := r.goneAfter(ctx); g != nil && g.prev != nil && g.prev.c == &rc {
				r.blame(g)
			}
		}
		redactWritten(&rc, keepingNames(st.leak, st.tools))
		return rc, nil
	}
	return report.Case{}, fmt.Errorf("the server no longer lists tool %q", toolName)
}

// regenerate rebuilds the compacted arguments of case c: from the digest's
// pattern when it has one (exact, whatever became of the schema), else from
// tool t's schema and the options of cfg; either way checked against the
// digest.
func regenerate(cfg Config, t tool, c report.Case) (json.RawMessage, error) {
	if p := c.ArgumentsDigest.Pattern; p != nil {
		if args, ok := report.ExpandPattern(p, c.ArgumentsDigest.Bytes); ok && c.ArgumentsDigest.Matches(args) {
			return args, nil
		}
	}
	schema, _ := t.Compiled()
	example, fromExample := cfg.Examples[t.Name]
	learned := false
	if !fromExample {
		example, learned = cfg.Learned[t.Name]
	}
	g, ok := casegen.Regenerate(t.Name, schema, casegen.Options{
		Seed:       cfg.Seed,
		Budget:     cfg.Cases,
		Example:    example,
		Aggressive: cfg.Profile == "aggressive",
	}, c.ID)
	options := fmt.Sprintf("seed %d, --cases %d, --profile %s", cfg.Seed, cfg.Cases, cfg.Profile)
	if fromExample {
		options += ", the config's example for the tool"
	}
	if learned {
		options += ", the valid call the report says was learned"
	}
	if !ok {
		return nil, fmt.Errorf("%w: it no longer yields case %q (regenerated with %s; a run with examples in its config needs the same --config)",
			ErrArgumentsChanged, c.ID, options)
	}
	if !c.ArgumentsDigest.Matches(g.Arguments) {
		got := report.DigestArguments(g.Arguments)
		return nil, fmt.Errorf("%w: case %q regenerates as %d bytes with sha256 %s, the report recorded %d bytes with sha256 %q "+
			"(regenerated with %s; a run with examples in its config needs the same --config)",
			ErrArgumentsChanged, c.ID, got.Bytes, got.SHA256, c.ArgumentsDigest.Bytes, c.ArgumentsDigest.SHA256, options)
	}
	return g.Arguments, nil
}

// reportCase is what the report stores of case c before it runs: what the
// case is, and its arguments, compacted when large (see
// [report.CompactArguments]) so that neither the report nor the memory of a
// long run grows with the size of oversize cases.
func reportCase(c casegen.Case) report.Case {
	args, digest := report.CompactArguments(c.Arguments)
	return report.Case{
		ID: c.ID, Kind: string(c.Kind), Pointer: c.Pointer, Nested: c.Nested,
		Forbidden: c.Forbidden, Arguments: args, ArgumentsDigest: digest, Flags: []string{},
	}
}
