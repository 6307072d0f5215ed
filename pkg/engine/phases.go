package engine

import (
	"context"

	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The checks beyond single calls (docs/BEHAVIOUR.md#checks-beyond-single-calls)
// come in families, each one entry of [phases]: its name, when it applies
// (its preconditions) and how it runs. The list is in the order the
// checks appear in the report; adding a family is one file (the phase's
// plan or run function) and one entry here.

// audit is what a phase may read of the audit it is part of: the target as
// discovery found it, the report so far and the connections to the
// server. Phases run one after the other, never at once.
type audit struct {
	cfg Config // validated and defaulted; Progress redacts what it reports
	cn  *session.Dialer
	// s is the session opened for discovery: its era, negotiated
	// version, capabilities and listings are the target's. Over stdio it
	// is the first worker's session (closed once the tools ran when it
	// broke, and with --no-calls).
	s     *session.Session
	tools []tool         // as listed
	rep   *report.Report // so far: the tools' cases, the lint, the era
	// live is the runner of the audit's first worker, its session still
	// open (see [pool.live]): the lifecycle checks and the protocol
	// checks' requests go on with it. nil with --no-calls, and once
	// closed (see [audit.closeSession]).
	live *runner
	// requestsSent says that a batch of protocol checks ran: the audit was
	// not interrupted before it.
	requestsSent bool
	// lateAnswers counts the late answers the phases' sessions saw.
	lateAnswers int
}

// closeSession closes the audit's live session, counting its runner's
// late answers, if it is still open.
func (a *audit) closeSession() {
	if a.live == nil {
		return
	}
	a.live.closeSession()
	a.lateAnswers += a.live.lateAnswers
	a.live = nil
}

// era is the era the audit speaks.
func (a *audit) era() string { return a.s.Era }

// version is the protocol version the audit negotiated.
func (a *audit) version() string { return a.s.Init.ProtocolVersion }

// A precondition says whether a phase applies to an audit, when the phase
// is reached.
type precondition func(ctx context.Context, a *audit) bool

// The preconditions of [phases].
var (
	// calling: the tools were called (not --no-calls).
	calling precondition = func(_ context.Context, a *audit) bool { return !a.cfg.NoCalls }
	// live: the audit was not interrupted.
	live precondition = func(ctx context.Context, _ *audit) bool { return ctx.Err() == nil }
	// modern: the audit speaks the modern era.
	modern precondition = func(_ context.Context, a *audit) bool { return a.era() == EraModern }
	// protocol: --protocol.
	protocol precondition = func(_ context.Context, a *audit) bool { return a.cfg.Protocol }
	// sequential: --sequential.
	sequential precondition = func(_ context.Context, a *audit) bool { return a.cfg.Sequential }
	// concurrent: --concurrency of 2 or more.
	concurrent precondition = func(_ context.Context, a *audit) bool { return a.cfg.Concurrency >= 2 }
	// afterRequests: a batch of protocol checks ran (see [audit.requestsSent]).
	afterRequests precondition = func(_ context.Context, a *audit) bool { return a.requestsSent }
	// streamableHTTP: the target is served over Streamable HTTP.
	streamableHTTP precondition = func(_ context.Context, a *audit) bool {
		return a.cn.Transport == "streamable-http" && a.cn.Header != nil
	}
	// handshakeRefused: the server answered server/discover, then wanted
	// initialize (the audit fell back to the legacy era).
	handshakeRefused precondition = func(_ context.Context, a *audit) bool { return a.cn.HandshakeRequired != "" }
)

// declared is the precondition that the server declares capability.
func declared(capability string) precondition {
	return func(_ context.Context, a *audit) bool { return declares(a.s.Init.Capabilities, capability) }
}

// phase is one family of checks. It either plans requests (plan), which
// run with those of the planning phases next to it in [phases] as one
// batch of protocol checks (see [audit.runBatch]: a batch needs the tools
// called and the audit not interrupted), or runs on its own (run) and
// returns its checks.
type phase struct {
	name string
	// when are the preconditions: the phase applies when all hold.
	when []precondition
	plan func(a *audit) []protocheck.Check
	run  func(ctx context.Context, a *audit) []report.Check
	// first: the phase runs before every other one, right after the tools,
	// on the session as they left it (a server's state is its session's,
	// or its process's, over stdio); its checks still take its place in
	// the report.
	first bool
	// ownSessions: the phase opens sessions of its own, once the audit's
	// is closed.
	ownSessions bool
}

// phases are the families of checks, in the order of the report.
var phases = []phase{
	{name: "envelope", when: []precondition{calling, live, modern}, plan: envelopePhase},
	{name: "compliance", when: []precondition{calling, live, modern}, plan: compliancePhase},
	{name: "resources", when: []precondition{calling, live, declared("resources")}, plan: resourcesPhase},
	{name: "prompts", when: []precondition{calling, live, declared("prompts")}, plan: promptsPhase},
	{name: "probes", when: []precondition{calling, live, protocol}, plan: probesPhase},
	{name: "observed", when: []precondition{calling, modern, afterRequests}, run: observedPhase},
	{name: "http", when: []precondition{calling, modern, afterRequests, streamableHTTP}, run: httpPhase},
	{name: "handshake", when: []precondition{handshakeRefused}, run: handshakePhase},
	{name: "lifecycle", when: []precondition{calling, sequential, live}, run: lifecyclePhase, first: true},
	{name: "concurrency", when: []precondition{calling, concurrent, live}, run: concurrencyPhase, ownSessions: true},
}

// applies reports whether every precondition of p holds.
func (p phase) applies(ctx context.Context, a *audit) bool {
	for _, holds := range p.when {
		if !holds(ctx, a) {
			return false
		}
	}
	return true
}

// runPhases runs the phases of list that apply to a: the first ones (see
// [phase.first]), then the others in order. It returns their checks in the
// order of list, and closes the audit's session.
func runPhases(ctx context.Context, a *audit, list []phase) []report.Check {
	out := make([][]report.Check, len(list))
	for i, p := range list {
		if p.first && p.applies(ctx, a) {
			out[i] = p.run(ctx, a)
		}
	}
	for i := 0; i < len(list); {
		p := list[i]
		switch {
		case p.first:
			i++
		case p.plan != nil:
			j := i + 1
			for j < len(list) && list[j].plan != nil && !list[j].first {
				j++
			}
			out[i] = a.runBatch(ctx, list[i:j])
			i = j
		default:
			if p.ownSessions {
				a.closeSession()
			}
			if p.applies(ctx, a) {
				out[i] = p.run(ctx, a)
			}
			i++
		}
	}
	a.closeSession()
	var all []report.Check
	for _, cs := range out {
		if all == nil {
			all = cs
		} else {
			all = append(all, cs...)
		}
	}
	return all
}

// runBatch plans the phases of batch that apply and sends their requests
// in order, on the audit's session, as one run of protocol checks (one
// [EventChecks], one time budget: see [checkRun]). A batch runs when the
// tools were called and the audit is not interrupted, even when none of its
// phases applies.
func (a *audit) runBatch(ctx context.Context, batch []phase) []report.Check {
	if a.live == nil || a.cfg.NoCalls || ctx.Err() != nil {
		return nil
	}
	var planned []protocheck.Check
	for _, p := range batch {
		if p.applies(ctx, a) {
			planned = append(planned, p.plan(a)...)
		}
	}
	a.requestsSent = true
	return newCheckRun(a.live).run(ctx, planned)
}

// httpPhase runs the HTTP compliance checks of a (see [phases]), each GET
// bounded as a protocol check's request is.
func httpPhase(ctx context.Context, a *audit) []report.Check {
	return httpcheck.Run(ctx, a.cn, a.version(), min(protocheck.Timeout, a.cfg.Timeout))
}
