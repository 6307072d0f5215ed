package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/lint"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
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
// With [EraBoth], Run audits the server in each era and compares them: see
// [runBoth].
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
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
	st, err := start(ctx, cfg)
	if err != nil {
		return nil, cfg, err
	}
	cn, s, detector := st.cn, st.s, st.leak
	shown := cfg.shown(detector)
	tools, disc, discLint := st.tools, st.disc, st.lint
	cfg.Progress = redactingProgress(cfg.Progress, keepingNames(detector, tools))
	if cn.mirrorsParams() {
		shown.params = cn.params.snapshot()
	}
	if err := cfg.checkMatches(tools); err != nil {
		s.close()
		return nil, shown, err
	}

	rep := &report.Report{
		Version:   cfg.Version,
		Seed:      cfg.Seed,
		StartedAt: started.UTC(),
		Config:    cfg.settings(),
		Run:       cfg.boxes.run(),
		Target:    shown.target(cn.transport),
		Server: report.Server{
			Name:              s.init.ServerInfo.Name,
			Version:           s.init.ServerInfo.Version,
			ProtocolVersion:   s.init.ProtocolVersion,
			Era:               s.era,
			EraReason:         s.eraReason,
			SupportedVersions: s.supported,
			Capabilities:      s.init.Capabilities,
			Instructions:      detector.Redact(s.init.Instructions),
		},
		Discovery:  disc,
		Lint:       slices.Concat(versionLint(s.era, s.init.ProtocolVersion), discLint, staticLint(s, tools), paramLint(tools, cn.mirrorsParams())),
		Dimensions: map[string]report.Dimension{},
	}

	a := &audit{cfg: cfg, cn: cn, s: s, tools: tools, rep: rep}
	if cfg.NoCalls {
		rep.Static = true
		rep.Tools, a.lateAnswers = staticAudit(cfg, s, tools)
		for _, t := range tools {
			schema, _ := t.compiled()
			rep.Lint = append(rep.Lint, lint.SchemaProblems(t.Name, schema)...)
		}
	} else {
		p := newPool(cfg, cn, s, detector)
		rep.Tools, rep.EndedEarly = p.run(ctx, tools)
		for _, l := range p.lint {
			rep.Lint = append(rep.Lint, l...)
		}
		a.live, a.lateAnswers = p.live, p.lateAnswers
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
	if o := cn.refusedOrigin(); o != "" {
		rep.Lint = append(rep.Lint, report.Lint{
			Code:     "cross_origin_redirect",
			Severity: report.SeverityError,
			Message:  fmt.Sprintf("the server sent mcp-fuzz to another origin, %s (a redirect or an SSE endpoint); the request was not sent, so no header or token left the origin of --url", detector.Redact(o)),
			Hint:     "serve MCP on one origin; clients do not follow a server to another host with their credentials",
		})
	}
	rep.ServerViolationCount, rep.ServerViolations = cn.stray.snapshot()
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
func staticAudit(cfg Config, s *session, tools []tool) ([]report.Tool, int) {
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
	s.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return out, s.lateAnswers
}

// started is a connected, initialized and listed target.
type started struct {
	cn    *connector
	s     *session
	leak  *leak.Detector
	tools []tool
	disc  report.Discovery
	lint  []report.Lint
}

// start connects to the target of cfg (already defaulted) and lists its
// tools, all within the startup timeout.
func start(ctx context.Context, cfg Config) (*started, error) {
	cn, err := newConnector(cfg)
	if err != nil {
		return nil, err
	}
	st := &started{cn: cn, leak: cn.leak}
	sctx, cancel := context.WithTimeout(ctx, cfg.StartupTimeout)
	defer cancel()
	if st.s, err = cn.connect(sctx); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrConnect, st.leak.Redact(startupError(sctx, err, cfg.StartupTimeout).Error()))
	}
	st.s.setPhase(phaseDiscovery)
	st.tools, st.disc, st.lint, err = discover(sctx, st.s)
	cn.params.set(st.tools)
	st.s.setPhase(phaseBetweenCalls)
	why := handshakeRequired(st.s, err)
	if why != "" && cfg.Era != EraAuto && cfg.Era != "" {
		// --era modern (or the modern audit of --era both): no fallback.
		st.s.close()
		return nil, fmt.Errorf("%w: %w", ErrConnect, &handshakeError{why: st.leak.Redact(why)})
	}
	if why != "" && sctx.Err() == nil {
		// The server answered server/discover, then refused the stateless
		// tools/list: it needs initialize after all. A current client
		// falls back; the audit goes on in the legacy era, and the
		// protocol checks say why.
		st.s.close()
		cn.cfg.Era, cn.handshakeRequired = EraLegacy, st.leak.Redact(why)
		if st.s, err = cn.connect(sctx); err != nil {
			return nil, fmt.Errorf("%w: %s; then, in the legacy era: %s", ErrConnect, cn.handshakeRequired, st.leak.Redact(startupError(sctx, err, cfg.StartupTimeout).Error()))
		}
		st.s.eraReason = cn.handshakeRequired
		st.s.setPhase(phaseDiscovery)
		st.tools, st.disc, st.lint, err = discover(sctx, st.s)
		cn.params.set(st.tools)
		st.s.setPhase(phaseBetweenCalls)
	}
	if err != nil {
		st.s.close()
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
func handshakeRequired(s *session, discoverErr error) string {
	var rpcErr *rpc.Error
	if s.era != EraModern || !errors.As(discoverErr, &rpcErr) {
		return ""
	}
	return fmt.Sprintf("the server answered server/discover (supportedVersions %s) but refused the stateless tools/list with %d: %s",
		excerpt(strings.Join(s.supported, ", "), 120), rpcErr.Code, excerpt(rpcErr.Message, 200))
}

// outputValidator checks structuredContent against the tool's outputSchema;
// nil when it declares none (or one that does not compile: internal/lint reports
// that).
func (t tool) outputValidator() func(json.RawMessage) error {
	if _, out := t.compiled(); out.Compiled() {
		return out.Validate
	}
	return nil
}

func startupError(ctx context.Context, err error, limit time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, errStartupTimedOut) {
		return fmt.Errorf("no answer within --startup-timeout %s (%v)", limit, err)
	}
	return err
}

// runner calls the cases of a sequence of tools on one session at a time,
// reconnecting after a case that broke the session.
type runner struct {
	cfg  Config
	cn   *connector
	s    *session // nil after a failure, until the next case reconnects
	leak *leak.Detector
	lint []report.Lint

	endedEarly string
	// lateAnswers counts answers to requests already answered or abandoned,
	// over the sessions this runner closed.
	lateAnswers int
	// timedOut is set by runCase when the call got no complete answer
	// within its deadline (a hang, or an answer that never ended).
	timedOut bool
	// lastText is the text of the last valid call's answer, cut to
	// maxLearnText: a result's text or an error's message and data, for
	// learning. It is the server's raw text: learning drops any value that
	// carries a secret before using it (see usableValue).
	lastText string
	// lastAnswer is the result of the last call that succeeded or
	// answered isError (nil otherwise): the lifecycle checks read the id
	// of what a create tool made from its text and structured content.
	lastAnswer *callResult
	// learn is what the runner learns valid calls from; nil: no learning.
	learn *learning
	// owner is the case the calls of runCase are made for, set by runTool
	// around the calls of its cases (nil for the calls made to learn a
	// valid input, or to replay a case).
	owner *callRef
	// last is the owner of the call the current session answered last: the
	// case blamed when the server exits right after answering it (see
	// [runner.blame]). nil when unknown, and for a new session.
	last *callRef
}

// callRef names the case a call was made for: a case already in its tool's
// report (rt and idx), or one being run (c).
type callRef struct {
	tool string
	rt   *report.Tool
	idx  int
	c    *report.Case
	// run is the run of the valid call (1 for its first); 0 for a
	// bad-input case.
	run int
}

func (ref *callRef) target() *report.Case {
	if ref.c != nil {
		return ref.c
	}
	return &ref.rt.Cases[ref.idx]
}

// serverGone says why a call never reached a live server: the server had
// exited (or closed the connection) before it read a byte of the request.
type serverGone struct {
	exitStatus string // "" when the process was not seen to exit
	stderr     string
	// prev is the owner of the call the session answered last, nil when
	// unknown.
	prev *callRef
}

// how says what the server did, for a detail: "exited (exit code 3)".
func (g *serverGone) how() string {
	if g.exitStatus == "" {
		return "closed the connection"
	}
	return "exited (" + g.exitStatus + ")"
}

func (r *runner) closeSession() {
	if r.s != nil {
		r.s.close()
		r.s.mu.Lock()
		r.lateAnswers += r.s.lateAnswers
		r.s.mu.Unlock()
		r.s = nil
	}
	r.last = nil
}

// ensureSession reconnects when the last case broke the session. After
// MaxReconnects failures in a row the run ends early.
func (r *runner) ensureSession(ctx context.Context) bool {
	if r.s != nil {
		return true
	}
	if r.endedEarly != "" {
		return false
	}
	var last error
	for i := 0; i < r.cfg.MaxReconnects; i++ {
		sctx, cancel := context.WithTimeout(ctx, r.cfg.StartupTimeout)
		s, err := r.cn.connect(sctx)
		cancel()
		if err == nil {
			r.s = s
			return true
		}
		last = err
		if ctx.Err() != nil {
			return false
		}
	}
	r.endedEarly = fmt.Sprintf("reconnecting to the server failed %d times in a row (%s); the remaining cases were not run", r.cfg.MaxReconnects, r.leak.Redact(last.Error()))
	return false
}

// runTool runs the cases of t into rt, which stays where it is until the
// run ends: a server that exits right after answering the last call of t
// is blamed on that call's case in rt when the next tool's first call
// finds it gone (see [runner.blame]).
// era is the era the run speaks: the one its first session negotiated
// (or --era), kept by the connector, since r.s may be closed.
func (r *runner) era() string {
	switch {
	case r.cn != nil && r.cn.cfg.Era != "" && r.cn.cfg.Era != EraAuto:
		return r.cn.cfg.Era
	case r.s != nil:
		return r.s.era
	}
	return ""
}

func (r *runner) runTool(ctx context.Context, t tool, rt *report.Tool) {
	*rt = report.Tool{Name: t.Name, Description: t.Description, Cases: []report.Case{}}
	reason := r.cfg.skipReason(t)
	if reason == "" {
		reason = taskSkipReason(t, r.era())
	}
	if reason == "" {
		reason = r.cn.paramSkipReason(t)
	}
	if reason != "" {
		rt.SkipReason = reason
		r.progress(Event{Kind: EventSkip, Tool: t.Name, Reason: reason})
		return
	}
	rt.Tested = true
	schema, _ := t.compiled()
	r.lint = append(r.lint, lint.SchemaProblems(t.Name, schema)...)
	example, fromExample := r.cfg.Examples[t.Name]
	plan := casegen.Generate(t.Name, schema, casegen.Options{
		Seed:       r.cfg.Seed,
		Budget:     r.cfg.Cases,
		Example:    example,
		Aggressive: r.cfg.Profile == "aggressive",
	})
	rt.Dropped = plan.Dropped
	validateOutput := t.outputValidator()
	r.progress(Event{Kind: EventTool, Tool: t.Name, Total: len(plan.Cases)})
	// After MaxHangs calls that timed out (a hang, or an answer that never
	// ended), a tool's remaining cases are not run: each would cost a whole
	// --timeout, and the finding is already made.
	hangs, cutOff, lastHang := 0, 0, -1
	for i := 0; i < len(plan.Cases); i++ {
		c := plan.Cases[i]
		rc := reportCase(c)
		r.timedOut = false
		switch {
		case r.cfg.MaxHangs > 0 && hangs >= r.cfg.MaxHangs:
			rc.Verdict = report.NotRun
			rc.Detail = fmt.Sprintf("not run: %s of the tool got no complete answer within the timeout (--max-hangs %d)", plural(hangs, "earlier case", "earlier cases"), r.cfg.MaxHangs)
			cutOff++
		case c.Kind == casegen.Valid && plan.GeneratorGap != "":
			rc.Verdict = report.GeneratorGap
			rc.Detail = "generated arguments do not validate against the tool's own schema (not sent; not the server's fault): " + plan.GeneratorGap
		case !r.ensureSession(ctx):
			rc.Verdict = report.NotRun
			rc.Detail = r.endedEarly
		default:
			r.owner = &callRef{tool: t.Name, c: &rc}
			if c.Kind == casegen.Valid {
				r.owner.run = 1
			}
			r.runCase(ctx, t, c, &rc, fromExample, validateOutput)
			if c.Kind != casegen.Valid {
				break
			}
			if rc.Verdict == report.Errored && !fromExample && !r.timedOut && t.retrySafe() && r.learn != nil {
				r.owner = nil // calls to learn from are no case of the report
				// learnInto may replace rc: a server that exits right
				// after answering the first call is blamed on a copy,
				// which then stays the case's verdict.
				first := rc
				if r.last != nil && r.last.c == &rc {
					r.last.c = &first
				}
				p, ok := r.learnInto(ctx, t, c, &rc, validateOutput)
				r.owner = &callRef{tool: t.Name, c: &rc, run: 1}
				if r.last != nil && r.last.c == &first {
					r.last.c = &rc // no call was made to learn from
				}
				if first.Verdict.Failure() {
					rc, ok = first, false
				} else if rc.LearnedFrom != "" && r.s != nil && r.last == nil {
					// The case is now the learned call, the last one the
					// session answered.
					last := *r.owner
					r.last = &last
				}
				if ok {
					rt.Dropped = p.Dropped
					plan.Cases = append(plan.Cases[:1], p.Cases[1:]...)
					c = p.Cases[0] // the learned call, timed again below
				}
			}
			if rc.Verdict.Confirms() {
				r.remember(t, r.lastText)
			}
			// Confirmed by the first run: a later run that fails
			// becomes the case's verdict, but the tool did work.
			rt.Confirmed = rc.Verdict.Confirms()
			r.repeatValid(ctx, t, c, &rc, fromExample, validateOutput)
		}
		if r.timedOut {
			hangs++
			lastHang = len(rt.Cases)
		}
		r.owner = nil
		rt.Cases = append(rt.Cases, rc)
		if r.last != nil && r.last.c == &rc {
			r.last.c, r.last.rt, r.last.idx = nil, rt, len(rt.Cases)-1
		}
		r.progress(Event{Kind: EventCase, Tool: t.Name, Case: &rt.Cases[len(rt.Cases)-1]})
		if ctx.Err() != nil {
			break
		}
		if r.cfg.MaxHangs > 0 && hangs == r.cfg.MaxHangs && r.timedOut && i < len(plan.Cases)-1 {
			r.progress(Event{Kind: EventCutoff, Tool: t.Name, Reason: fmt.Sprintf("%s got no complete answer within the timeout: the tool's other cases are not run (--max-hangs %d)", plural(hangs, "case", "cases"), r.cfg.MaxHangs)})
		}
	}
	if cutOff > 0 {
		c := &rt.Cases[lastHang]
		c.Detail += fmt.Sprintf("; after %s without a complete answer the tool's remaining %s not run (--max-hangs %d)",
			plural(hangs, "case", "cases"), plural(cutOff, "case was", "cases were"), r.cfg.MaxHangs)
	}
}

// runCase sends one case, gathers what came back, has the oracle judge it
// (see [judge]) and records the judgement in rc. It keeps the session only
// while it is alive.
//
// A call that never reached a live server (see [runner.callCase]) is not
// the case's fault: the exit is blamed on the call the session answered
// last ([runner.blame]), and the case is sent once more, to a restarted
// server; not run when the restart fails.
func (r *runner) runCase(ctx context.Context, t tool, c casegen.Case, rc *report.Case, fromExample bool, validateOutput func(json.RawMessage) error) {
	base := *rc
	base.Flags = slices.Clone(rc.Flags)
	gone := r.callCase(ctx, t, c, rc, fromExample, validateOutput, true)
	if gone == nil {
		return
	}
	why := r.blame(gone)
	*rc = base
	rc.Flags = slices.Clone(base.Flags)
	if !r.ensureSession(ctx) {
		rc.Verdict = report.NotRun
		rc.Detail = "not run: " + why + ", and restarting it failed: " + r.endedEarly
		return
	}
	r.callCase(ctx, t, c, rc, fromExample, validateOutput, false)
	rc.Detail = joinDetail(rc.Detail, "sent again to a restarted server: "+why)
}

// blame attributes the end of a server that exited, or closed the
// connection, before it read a request (g) to the call it answered last,
// g.prev: the server exited right after answering it. That case becomes a
// crash (a failure already keeps its verdict and says what followed); a
// repeated valid call's failedRun becomes the run answered last, so that
// its reproducer, which sends the call that many times, shows the exit. It
// returns what happened, for the detail of the call that was not sent.
//
// The case may be in an earlier tool's report: the session went on from
// that tool's last case to this tool's first one, and that last answer is
// what the server exited after. When the owner of the last answer is
// unknown (a call made to learn a valid input), no case is blamed; the
// detail of the next case says that the server had exited before it was
// sent.
func (r *runner) blame(g *serverGone) string {
	ref := g.prev
	if ref == nil {
		return fmt.Sprintf("the server had %s before this call was sent, after answering a call that is not a case of the report", g.how())
	}
	c := ref.target()
	how := report.CrashExit
	if g.exitStatus == "" {
		how = report.CrashClosed
	}
	what := fmt.Sprintf("the server %s right after answering this call", g.how())
	if ref.run > 0 && r.cfg.Repeat > 1 {
		what = fmt.Sprintf("run %d of %d of the same call: the server %s right after answering it", ref.run, r.cfg.Repeat, g.how())
	}
	if c.Verdict.Failure() {
		c.Detail = joinDetail(c.Detail, "then "+strings.TrimPrefix(what, "the server "))
		if c.Crash == nil {
			c.Crash = &report.CrashInfo{How: how}
		}
		if c.Crash.ExitStatus == "" {
			c.Crash.ExitStatus = g.exitStatus
		}
		if c.Crash.Stderr == "" {
			c.Crash.Stderr = g.stderr
		}
	} else {
		c.Detail = fmt.Sprintf("%s (the answer was %s: %s)", what, c.Verdict, orText(c.Detail, "no detail"))
		c.Verdict, c.ErrorCode = report.Crash, nil
		c.Crash = &report.CrashInfo{How: how, ExitStatus: g.exitStatus, Stderr: g.stderr}
		if c.Timing != nil && ref.run > 0 {
			c.Timing.FailedRun = ref.run
			c.Timing.Note = joinDetail(c.Timing.Note, fmt.Sprintf("the server %s right after answering run %d", g.how(), ref.run))
		}
	}
	if ref.c == nil {
		// Reported already: it is reported again, now a failure.
		r.progress(Event{Kind: EventCase, Tool: ref.tool, Case: c})
	}
	return fmt.Sprintf("the server had %s right after answering the previous call (%s, case %s)", g.how(), ref.tool, c.ID)
}

// callCase is one attempt of [runner.runCase]. With detect, a call that
// never reached a live server is not judged: callCase closes the session
// and says why (rc is then left half-filled, for the caller to redo).
// Without it, such a call is judged as a closed connection, its detail
// saying that the server had exited before the call was sent.
//
// Never reached means, with no guess about timing: the connection had
// already ended when the call began, or the server's process exited
// without having read a byte of the request (it was still in the pipe, or
// could not be written to it at all; see [stdio.Process.InputReadAtExit]).
// A server that read the request and then died is the call's crash.
func (r *runner) callCase(ctx context.Context, t tool, c casegen.Case, rc *report.Case, fromExample bool, validateOutput func(json.RawMessage) error, detect bool) *serverGone {
	s := r.s
	params := callParams(t.Name, c.Arguments)
	endedBefore := isDone(s.client.Done())
	var written int64
	if s.proc != nil {
		written = s.proc.InputWritten()
	}
	violationsBefore, panicsBefore := s.beginCall()
	limit := r.cfg.callTimeout(t.Name)
	var taskState string
	raw, secretsSeen, ms, err := s.timedCall(ctx, limit, func(cctx context.Context) (json.RawMessage, []string, error) {
		if t.TaskSupport == "required" {
			// Refused as a plain call: the call, tasks/get, tasks/result.
			return s.taskCall(cctx, params, limit, &taskState)
		}
		return s.call(cctx, "tools/call", params)
	})
	rc.DurationMs = ms
	rc.Task = t.TaskSupport == "required"

	o := s.outcomeOf(ctx, raw, err)
	if o.closed {
		o.exitStatus = s.waitExit(2 * time.Second)
		unsent := s.unsent(endedBefore, written)
		if unsent && detect {
			s.endCall(violationsBefore)
			return r.leaveGone()
		}
		o.unsent = unsent
	}
	violations, inViolations := s.endCall(violationsBefore)
	o.violations = violations
	o.secrets = append(secretsSeen, inViolations...)
	_, panics := s.marks()
	o.stderrPanic = panics > panicsBefore

	j := judge(caseInfo{
		kind:        c.Kind,
		forbidden:   c.Forbidden,
		fromExample: fromExample,
		validate:    validateOutput,
		args:        c.Arguments,
		leak:        r.leak,
		maxResponse: r.cfg.MaxResponse,
	}, o)
	rc.Verdict, rc.Detail, rc.ErrorCode = j.verdict, j.detail, j.errorCode
	if j.verdict == report.Hang && taskState != "" {
		rc.Detail = joinDetail(rc.Detail, taskState)
	}
	rc.Flags = append(rc.Flags, j.flags...)
	rc.Response, rc.Size = j.response, j.size
	// What learning reads (see [runner.remember]): only valid calls',
	// its own listing calls included.
	r.lastText = ""
	r.lastAnswer = j.result
	switch {
	case c.Kind != casegen.Valid:
	case j.result != nil:
		r.lastText = cutUTF8(j.result.Text, maxLearnText)
	case o.rpcErr != nil:
		r.lastText = cutUTF8(o.rpcErr.Message+"\n"+string(o.rpcErr.Data), maxLearnText)
	}
	if j.verdict.Failure() {
		rc.Crash = &report.CrashInfo{How: j.crash}
	}
	if r.owner != nil {
		last := *r.owner
		r.last = &last
	} else {
		r.last = nil
	}

	r.timedOut = o.hung || o.unended()
	r.settle(ctx, s, o)
	if rc.Crash != nil && s.proc != nil {
		// After closeSession the exit status and the stderr tail are
		// complete; for a live server they are what it said so far.
		rc.Crash.ExitStatus = s.proc.ExitStatus()
		rc.Crash.Stderr = r.stderrTail(s.proc.Stderr())
	}
	return nil
}

// timedCall makes one call with send within limit, cut short by a
// protocol violation while it is in flight (see [session.inCall]), and
// says how long it took, in milliseconds.
func (s *session) timedCall(ctx context.Context, limit time.Duration, send func(context.Context) (json.RawMessage, []string, error)) (json.RawMessage, []string, float64, error) {
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	s.inCall(cancel)
	start := time.Now()
	raw, found, err := send(cctx)
	ms := float64(time.Since(start).Microseconds()) / 1000
	s.inCall(nil)
	return raw, found, ms, err
}

// outcomeOf sorts the answer of a call made with ctx (raw, err from
// [session.call]) into an outcome. A closed connection is only marked: the
// caller decides whether the request ever reached the server.
func (s *session) outcomeOf(ctx context.Context, raw json.RawMessage, err error) outcome {
	var o outcome
	var rpcErr *rpc.Error
	var over *rpc.Oversize
	switch {
	case err == nil:
		o.result = raw
	case errors.As(err, &rpcErr):
		o.rpcErr = rpcErr
	case errors.As(err, &over):
		o.oversize = over
	case ctx.Err() != nil:
		o.cancelled = true
	case errors.Is(err, context.DeadlineExceeded):
		o.hung = true
		// Not silence if an answer began and never ended.
		o.pendingLine = s.pendingLine()
	case errors.Is(err, context.Canceled):
		// Cut short by a protocol violation: the answer, if any, was garbage.
		o.cutShort = true
	default:
		o.closed = true
	}
	return o
}

// settle keeps or ends the session s after a call's outcome o. The verdict
// does not decide restarts (docs/BEHAVIOUR.md#the-oracle): an answer, any JSON-RPC error
// included, means the session is alive. Only a closed connection, or no
// answer followed by a failed liveness request, ends it.
func (r *runner) settle(ctx context.Context, s *session, o outcome) {
	switch {
	case o.closed, o.unended():
		// An unfinished line leaves the stream mid-message: no later
		// answer could be read, a ping included.
		r.closeSession()
	case o.hung || o.cutShort:
		if !r.alive(ctx, s) {
			r.closeSession()
		}
	}
}

// unsent reports, once a call failed for a closed connection, whether its
// request never reached a live server (see [runner.callCase]): the
// connection had ended before the call began (endedBefore), or the process
// exited without reading a byte past written, the input offset of the
// request. The process has been given time to exit ([session.waitExit]).
func (s *session) unsent(endedBefore bool, written int64) bool {
	if endedBefore {
		return true
	}
	if s.proc == nil {
		return false
	}
	read, ok := s.proc.InputReadAtExit()
	return ok && read <= written
}

// leaveGone closes a session whose server exited, or closed the
// connection, without reading the last request, and says how it ended.
func (r *runner) leaveGone() *serverGone {
	s := r.s
	g := &serverGone{prev: r.last}
	r.closeSession()
	if s.proc != nil {
		g.exitStatus = s.proc.ExitStatus()
		g.stderr = r.stderrTail(s.proc.Stderr())
	}
	return g
}

// goneAfter pings the server after a call and reports whether it had
// exited, or closed the connection, without reading the ping: then it ended
// right after its last answer (see [runner.blame]). nil when the ping was
// answered, timed out, or reached the server before it ended.
func (r *runner) goneAfter(ctx context.Context) *serverGone {
	s := r.s
	if s == nil || ctx.Err() != nil {
		return nil
	}
	endedBefore := isDone(s.client.Done())
	var written int64
	if s.proc != nil {
		written = s.proc.InputWritten()
	}
	pctx, cancel := context.WithTimeout(ctx, min(pingTimeout, r.cfg.Timeout))
	_, _, err := s.liveness(pctx)
	cancel()
	if !errors.Is(err, rpc.ErrClosed) {
		return nil
	}
	s.waitExit(2 * time.Second)
	if !s.unsent(endedBefore, written) {
		return nil
	}
	return r.leaveGone()
}

// isDone reports whether ch is closed.
func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// pingTimeout bounds the liveness check after a call that got no answer.
const pingTimeout = 2 * time.Second

// alive reports whether s still answers: after a hung call (for which the
// client has sent notifications/cancelled), a ping must get an answer, any
// answer, -32601 from a server of an era without ping included.
func (r *runner) alive(ctx context.Context, s *session) bool {
	if ctx.Err() != nil {
		return false
	}
	pctx, cancel := context.WithTimeout(ctx, min(pingTimeout, r.cfg.Timeout))
	defer cancel()
	_, _, err := s.liveness(pctx)
	var rpcErr *rpc.Error
	return err == nil || errors.As(err, &rpcErr)
}

func callParams(name string, args json.RawMessage) json.RawMessage {
	n, _ := json.Marshal(name)
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	b := make([]byte, 0, len(n)+len(args)+32)
	b = append(b, `{"name":`...)
	b = append(b, n...)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	b = append(b, '}')
	return b
}

// callTimeout is the deadline of one call to tool: --timeout, or the tool's
// own timeout from the config file. Oversize cases get no more: their
// payloads are sized to be cheap (docs/BEHAVIOUR.md#case-generation).
func (c Config) callTimeout(tool string) time.Duration {
	if t, ok := c.ToolTimeouts[tool]; ok && t > 0 {
		return t
	}
	return c.Timeout
}

// waitExit gives a dying process a moment to be reaped and returns how it
// ended ("" when it is still running or over HTTP).
func (s *session) waitExit(d time.Duration) string {
	if s.proc == nil {
		return ""
	}
	select {
	case <-s.proc.Done():
	case <-time.After(d):
	}
	return s.proc.ExitStatus()
}

// stderrTail is the end of a server's stderr for a report: redacted before
// it is cut (so the cut cannot leave part of a secret), starting at a line
// start when the ring buffer dropped older output (whose first line may be
// the rest of a secret that began in the dropped part).
func (r *runner) stderrTail(stderr string) string {
	if len(stderr) >= stdio.DefaultStderrLimit-utf8.UTFMax {
		if i := strings.IndexByte(stderr, '\n'); i >= 0 {
			stderr = stderr[i+1:]
		}
	}
	return tail(r.leak.Redact(stderr), 2048)
}

// plural says "1 case" or "2 cases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func (r *runner) progress(e Event) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(e)
	}
}

func (c Config) settings() report.Settings {
	return report.Settings{
		Cases:              c.Cases,
		SlowMs:             c.SlowMs,
		BloatChars:         c.BloatChars,
		TimeoutMs:          c.Timeout.Milliseconds(),
		StartupTimeoutMs:   c.StartupTimeout.Milliseconds(),
		IncludeDestructive: c.IncludeDestructive,
		Sequential:         c.Sequential,
		Tools:              c.Tools,
		SkipTools:          c.SkipTools,
		Profile:            c.Profile,
		Era:                c.Era,
		Protocol:           c.Protocol,
		MaxResponseBytes:   c.MaxResponse,
		MaxHangs:           max(c.MaxHangs, 0),
		Parallel:           c.Parallel,
		Repeat:             c.Repeat,
		NoCalls:            c.NoCalls,
		Concurrency:        c.Concurrency,
		ExampleTools:       slices.Sorted(maps.Keys(c.Examples)),
	}
}

// shown is c as the report and its reproducers may spell it: the command's
// words, the URL and the working directory with every secret of d redacted.
// Environment values and headers are never spelled out.
func (c Config) shown(d *leak.Detector) Config {
	if len(c.Command) > 0 {
		c.Command = slices.Clone(c.Command)
		for i, a := range c.Command {
			c.Command[i] = d.Redact(a)
		}
		if c.TemporaryProgram {
			c.Command[0] = filepath.Base(c.Command[0])
		}
	}
	c.URL = d.Redact(redactURL(c.URL))
	c.Cwd = d.Redact(c.Cwd)
	return c
}

// target is what the report records of c's target: call it on c.shown, so
// that no secret reaches it.
func (c Config) target(transport string) report.Target {
	t := report.Target{Transport: transport, URL: c.URL, Cwd: c.Cwd}
	if len(c.Command) > 0 {
		t.Command = shellJoin(c.Command)
		t.Args = slices.Clone(c.Command)
	}
	for _, kv := range c.Env {
		k, _, _ := cutEnv(kv)
		t.Env = append(t.Env, k)
	}
	t.Env = append(t.Env, c.PassEnv...)
	for _, h := range c.Headers {
		n, _, _ := parseHeader(h)
		t.Headers = append(t.Headers, n)
	}
	t.Bearer = c.Bearer != ""
	return t
}

// staticLint runs the metadata rules (docs/BEHAVIOUR.md#static-lint) over what discovery found.
func staticLint(s *session, tools []tool) []report.Lint {
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(s.init.Capabilities, &caps)
	_, hasTools := caps["tools"]
	srv := lint.Server{
		Name:            s.init.ServerInfo.Name,
		Version:         s.init.ServerInfo.Version,
		Instructions:    s.init.Instructions,
		ToolsCapability: hasTools,
		Source:          lint.SourceInitialize,
	}
	if s.era == EraModern {
		srv.Source = lint.SourceDiscover
	}
	lt := make([]lint.Tool, len(tools))
	for i, t := range tools {
		in, out := t.compiled()
		lt[i] = lint.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Input: in, Output: out}
	}
	return lint.Check(srv, lt)
}

// redactURL hides credentials in a URL (user:password@, token-like query
// values) before it is recorded in a report.
// userinfo matches the credentials of a URL, scheme://user:password@.
var userinfo = regexp.MustCompile(`^([^:/?#]*:?//)[^/?#]*@`)

// hideUserinfo replaces the credentials of a URL as written, and its query,
// by ***, even in one that does not parse, and leaves the rest as it is.
func hideUserinfo(raw string) string {
	raw = userinfo.ReplaceAllString(raw, "${1}***@")
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw = raw[:i] + "?***"
	}
	return raw
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return hideUserinfo(raw)
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	q := u.Query()
	changed := false
	for k := range q {
		switch strings.ToLower(k) {
		case "token", "access_token", "api_key", "apikey", "key", "secret", "password", "auth":
			q.Set(k, "***")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
