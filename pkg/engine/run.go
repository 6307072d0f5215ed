package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/lint"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// EventKind says what an [Event] reports.
type EventKind string

// The progress events, in the order a tool meets them.
const (
	EventSkip   EventKind = "skip"   // a tool is not called (Reason)
	EventTool   EventKind = "tool"   // a tool starts (Total cases planned)
	EventCase   EventKind = "case"   // a case ended (Case)
	EventCutoff EventKind = "cutoff" // a tool's remaining cases will not run (Reason; MaxHangs)
	// After the tools, in the modern era: the protocol checks.
	EventChecks EventKind = "checks" // the protocol checks start (Total requests planned)
	EventCheck  EventKind = "check"  // a protocol check ended (Check)
	// With --sequential (before the protocol checks) and --concurrency
	// (after them): a phase of checks starts, which may take long before
	// its first EventCheck.
	EventPhase EventKind = "phase" // lifecycle or concurrency checks start (Reason says which and what; Total checks planned)
)

// Event reports progress. What it carries is redacted as the report is:
// Case and Check are redacted copies of the run's records.
type Event struct {
	Kind   EventKind
	Tool   string
	Reason string        // for EventSkip, EventCutoff and EventPhase
	Total  int           // for EventTool, EventChecks and EventPhase
	Case   *report.Case  // for EventCase
	Check  *report.Check // for EventCheck
}

// ErrInterrupted is returned, with the partial report, when ctx ends during
// the run (SIGINT in the CLI): the cases run so far are in the report, and
// the server was stopped.
var ErrInterrupted = errors.New("interrupted")

// Run audits the target described by cfg. It returns an error wrapping
// [ErrConfig] for an unusable configuration (also [ErrNoMatch] when a tool
// pattern or per-tool name matches no listed tool: checked before any case
// runs) and [ErrConnect] when the target
// could not be started, initialized or listed; every other problem is a
// finding in the report. When ctx ends after the target was listed, Run stops
// the server and returns what it has: the partial report and an error
// wrapping [ErrInterrupted] and ctx's error.
//
// With [EraBoth], Run audits the server in each era and compares them: the
// report is the modern audit's (or that of the one era the server speaks),
// with the other audit's differences in [report.Report.EraComparison], an
// era_difference finding per difference, and a finding of its own code
// per failure seen only in the legacy era.
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	cfg, removeScratch, err := cfg.withScratch()
	if err != nil {
		return nil, err
	}
	defer removeScratch()
	defer cfg.boxed()()
	if cfg.Era == EraBoth {
		return runBoth(ctx, cfg)
	}
	rep, _, err := auditOnce(ctx, cfg)
	return rep, err
}

// auditOnce is one whole audit of the target of cfg (validated and
// defaulted) in one era, or as --era auto negotiates: [Run] is one, and
// [runBoth] two. It also returns cfg as the report may spell it (see
// [Config.shown]), which reproducers are built from.
func auditOnce(ctx context.Context, cfg Config) (*report.Report, Config, error) {
	started := time.Now()
	cfg.started = started
	st, err := start(ctx, cfg)
	if err != nil {
		return nil, cfg, err
	}
	cn, s, detector := st.cn, st.s, st.leak
	shown := cfg.shown(detector)
	tools, disc, discLint := st.tools, st.disc, st.lint
	cfg.Progress = redactingProgress(cfg.Progress, keepingNames(detector, tools))
	if cn.MirrorsParams() {
		shown.params = cn.Params.Snapshot()
	}
	if err := cfg.checkMatches(tools); err != nil {
		s.Close()
		return nil, shown, err
	}

	rep := &report.Report{
		Version:    cfg.Version,
		Seed:       cfg.Seed,
		StartedAt:  started.UTC(),
		Config:     cfg.settings(),
		Run:        cfg.boxes.run(),
		Target:     shown.target(cn.Transport),
		Server:     s.Server(detector.Redact),
		Discovery:  disc,
		Lint:       slices.Concat(session.VersionLint(s.Era, s.Init.ProtocolVersion), discLint, staticLint(s, tools), session.ParamLint(tools, cn.MirrorsParams())),
		Dimensions: map[string]report.Dimension{},
	}
	rep.Scratch = cfg.sec.scratchReport()
	if s.Era == EraLegacy && s.EraReason != "" {
		rep.Lint = append(rep.Lint, session.LegacyOnlyLint(s.EraReason)...)
	}

	a := &audit{cfg: cfg, cn: cn, s: s, tools: tools, rep: rep}
	if cfg.NoCalls {
		rep.Static = true
		rep.Tools, a.lateAnswers = staticAudit(cfg, s, tools)
		for _, t := range tools {
			schema, _ := t.Compiled()
			rep.Lint = append(rep.Lint, lint.SchemaProblems(t.Name, schema)...)
		}
	} else {
		p := newPool(cfg, cn, s, detector)
		rep.Tools, rep.EndedEarly = p.run(ctx, tools)
		for _, l := range p.lint {
			rep.Lint = append(rep.Lint, l...)
		}
		a.live, a.lateAnswers = p.live, p.lateAnswers
		rep.Lint = append(rep.Lint, a.relistLint(ctx)...)
	}
	rep.Checks = runPhases(ctx, a, phases)
	lateAnswers := a.lateAnswers
	for i := range rep.Checks {
		// What the checks observed names server text (method names of
		// its messages, its metadata): redacted like the rest.
		rep.Checks[i].Detail = detector.Redact(rep.Checks[i].Detail)
	}
	if lateAnswers > 0 {
		rep.Lint = append(rep.Lint, report.Lint{
			Code:     "late_answers",
			Severity: report.SeverityWarning,
			Message:  fmt.Sprintf("the server sent %s to requests it had already answered, or that mcp-fuzz had cancelled after its timeout and whose late answer it had already received", plural(lateAnswers, "answer", "answers")),
			Hint:     "answer each request once; after notifications/cancelled, do not answer at all",
		})
	}
	if o := cn.RefusedOrigin(); o != "" {
		rep.Lint = append(rep.Lint, report.Lint{
			Code:     "cross_origin_redirect",
			Severity: report.SeverityError,
			Message:  fmt.Sprintf("the server sent mcp-fuzz to another origin, %s (a redirect or an SSE endpoint); the request was not sent, so no header or token left the origin of --url", detector.Redact(o)),
			Hint:     "serve MCP on one origin; clients do not follow a server to another host with their credentials",
		})
	}
	rep.ServerViolationCount, rep.ServerViolations = cn.Stray.Snapshot()
	flagPerformance(rep.Tools, float64(cfg.SlowMs), cfg.BloatChars)
	rep.Summary = report.Summarize(rep.Tools)
	rep.Interrupted = ctx.Err() != nil
	if rep.Interrupted && rep.EndedEarly == "" {
		// Stopped after the tools ran (during the protocol checks).
		rep.EndedEarly = fmt.Sprintf("interrupted (%v) during the protocol checks, after every tool ran", context.Cause(ctx))
	}
	rep.Findings = findings(rep, shown)
	// Once, at the boundary, over everything the report holds: see
	// [redactWritten].
	redactWritten(rep, keepingNames(detector, tools))
	rep.Normalize()
	score.Apply(rep)
	rep.DurationMs = time.Since(started).Milliseconds()
	if ctx.Err() != nil {
		return rep, shown, fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx))
	}
	return rep, shown, nil
}

// staticAudit is what a static audit ([Config.NoCalls]) does after
// discovery: it lists every tool as not called, with [NoCallsReason], and
// closes the session without sending anything. It returns the tools, and
// the late answers the session saw during discovery.
func staticAudit(cfg Config, s *session.Session, tools []tool) ([]report.Tool, int) {
	out := make([]report.Tool, len(tools))
	for i, t := range tools {
		out[i] = report.Tool{Name: t.Name, Description: t.Description, Cases: []report.Case{}, SkipReason: NoCallsReason}
		if cfg.Progress != nil {
			cfg.Progress(Event{Kind: EventSkip, Tool: t.Name, Reason: NoCallsReason})
		}
	}
	if cfg.Listed != nil {
		cfg.Listed(hints(tools))
	}
	s.Close()
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return out, s.LateAnswers
}

// started is a connected, initialized and listed target.
type started struct {
	cn    *session.Dialer
	s     *session.Session
	leak  *leak.Detector
	tools []tool
	disc  report.Discovery
	lint  []report.Lint
}

// start connects to the target of cfg (already defaulted) and lists its
// tools, all within the startup timeout.
func start(ctx context.Context, cfg Config) (*started, error) {
	cn, err := newDialer(cfg)
	if err != nil {
		return nil, err
	}
	st := &started{cn: cn, leak: cn.Leak}
	sctx, cancel := context.WithTimeout(ctx, cfg.StartupTimeout)
	defer cancel()
	if st.s, err = cn.Connect(sctx); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrConnect, st.leak.Redact(startupError(sctx, err, cfg.StartupTimeout).Error()))
	}
	st.s.SetPhase(session.PhaseDiscovery)
	st.tools, st.disc, st.lint, err = session.Discover(sctx, st.s)
	cn.Params.Set(st.tools)
	st.s.SetPhase(session.PhaseBetweenCalls)
	why := handshakeRequired(st.s, err)
	if why != "" && cfg.Era != EraAuto && cfg.Era != "" {
		// --era modern (or the modern audit of --era both): no fallback.
		st.s.Close()
		return nil, fmt.Errorf("%w: %w", ErrConnect, &handshakeError{why: st.leak.Redact(why)})
	}
	if why != "" && sctx.Err() == nil {
		// The server answered server/discover, then refused the stateless
		// tools/list: it needs initialize after all. A current client
		// falls back; the audit goes on in the legacy era, and the
		// protocol checks say why.
		st.s.Close()
		cn.RequireHandshake(st.leak.Redact(why))
		if st.s, err = cn.Connect(sctx); err != nil {
			return nil, fmt.Errorf("%w: %s; then, in the legacy era: %s", ErrConnect, cn.HandshakeRequired, st.leak.Redact(startupError(sctx, err, cfg.StartupTimeout).Error()))
		}
		st.s.EraReason = cn.HandshakeRequired
		st.s.SetPhase(session.PhaseDiscovery)
		st.tools, st.disc, st.lint, err = session.Discover(sctx, st.s)
		cn.Params.Set(st.tools)
		st.s.SetPhase(session.PhaseBetweenCalls)
	}
	if err != nil {
		st.s.Close()
		if over := (*rpc.Oversize)(nil); errors.As(err, &over) {
			return nil, fmt.Errorf("%w: discovery: an answer of %d bytes, over --max-response %d: raise --max-response (up to 1GiB) to audit a server whose tool list is this large", ErrConnect, over.Bytes, cfg.MaxResponse)
		}
		return nil, fmt.Errorf("%w: discovery: %s", ErrConnect, st.leak.Redact(startupError(sctx, err, cfg.StartupTimeout).Error()))
	}
	return st, nil
}

// handshakeError is why the stateless era failed after server/discover
// (see [handshakeRequired]), for --era modern and the modern audit of
// --era both.
type handshakeError struct{ why string }

func (e *handshakeError) Error() string { return e.why }

// handshakeRequired says why a session that negotiated the modern era
// needs initialize after all: the server answered server/discover but
// refused the stateless tools/list with a JSON-RPC error (discoverErr).
// "" when it did not. With the era left to mcp-fuzz the audit falls back
// to initialize; otherwise it is a [handshakeError].
func handshakeRequired(s *session.Session, discoverErr error) string {
	var rpcErr *rpc.Error
	if s.Era != EraModern || !errors.As(discoverErr, &rpcErr) {
		return ""
	}
	return fmt.Sprintf("the server answered server/discover (supportedVersions %s) but refused the stateless tools/list with %d: %s",
		excerpt(strings.Join(s.Supported, ", "), 120), rpcErr.Code, excerpt(rpcErr.Message, 200))
}

func startupError(ctx context.Context, err error, limit time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, session.ErrStartupTimedOut) {
		return fmt.Errorf("no answer within --startup-timeout %s (%v)", limit, err)
	}
	return err
}
