package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The concurrency checks (docs/BEHAVIOUR.md#checks-beyond-single-calls, --concurrency N) run after the tools
// and the protocol checks, each on sessions of its own:
//
//   - concurrency/TOOL: N independent sessions (N server processes over
//     stdio, N connections over HTTP) make the valid call of a confirmed
//     tool safe to call again at once, each answer judged by the oracle as
//     a valid case. Some failing while others succeed on identical input,
//     or all failing where the call alone succeeded, is a
//     [report.CodeConcurrencyFailure]; a crash, hang or protocol violation
//     under concurrency has the verdict's own code.
//   - concurrency/same-session: N requests in flight together on one
//     session; each answer must come back under its own id, once.
//   - concurrency/cancel: on that session, a request given up on while in
//     flight (notifications/cancelled); the session must still answer the
//     next request.

// concurrencyGroup is the group of the concurrency checks' ids.
const concurrencyGroup = "concurrency"

// concurrencyBudget bounds the concurrency checks together: starting N
// servers for each tool, and a tool whose calls hang together, cost this
// much at most, not a timeout (and N starts) per tool.
var concurrencyBudget = 60 * time.Second

// maxConcurrencyDetail bounds how many failed calls a check's detail
// describes (the rest are counted).
const maxConcurrencyDetail = 3

// concurrencyRun runs the concurrency checks of one audit.
type concurrencyRun struct {
	cfg      Config
	cn       *connector
	n        int
	deadline time.Time
	// lateAnswers counts the late answers the sessions saw.
	lateAnswers int
	// tail reads a server's stderr tail, redacted.
	tail *runner
}

// concurrencyPhase runs the concurrency checks of a on sessions of their
// own (see [phases]).
func concurrencyPhase(ctx context.Context, a *audit) []report.Check {
	checks, late := concurrencyChecks(ctx, a.cfg, a.cn, a.rep.Tools, a.tools)
	a.lateAnswers += late
	return checks
}

// concurrencyChecks runs the concurrency checks on the target of cn after
// the audit's tools (tested, as reported; tools, as listed). It returns
// the checks, in order, and the late answers their sessions saw. Every
// session it opens is closed before it returns.
func concurrencyChecks(ctx context.Context, cfg Config, cn *connector, tested []report.Tool, tools []tool) ([]report.Check, int) {
	cr := &concurrencyRun{cfg: cfg, cn: cn, n: cfg.Concurrency, deadline: time.Now().Add(concurrencyBudget), tail: &runner{leak: cn.leak}}
	bctx, cancel := context.WithDeadline(ctx, cr.deadline)
	defer cancel()
	byName := map[string]tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	if cfg.Progress != nil {
		planned := 0
		for _, rt := range tested {
			if _, ok := byName[rt.Name]; ok && rt.Tested {
				planned++
			}
		}
		cfg.Progress(Event{Kind: EventPhase, Total: planned + 2,
			Reason: fmt.Sprintf("concurrency checks (--concurrency %d): %s at once for each tool safe to call again, then %d requests on one session (at most %s)",
				cr.n, plural(cr.n, "session", "sessions"), cr.n, concurrencyBudget)})
	}
	var out []report.Check
	var sample *concurrencyCall
	for _, rt := range tested {
		t, ok := byName[rt.Name]
		if !ok || !rt.Tested {
			continue
		}
		cc, skip := cr.eligible(t, rt)
		c := report.Check{ID: concurrencyGroup + "/" + t.Name, Group: concurrencyGroup, Tool: t.Name,
			Title:    fmt.Sprintf("%d sessions making the tool's valid call at once get what the call alone got", cr.n),
			Expected: "every call succeeds, as the call alone did"}
		switch {
		case ctx.Err() != nil:
			return out, cr.lateAnswers
		case skip != "":
			c.Status, c.Detail = report.CheckSkip, skip
		default:
			if sample == nil {
				sample = cc
			}
			c.Request = protocheck.RequestLine("tools/call", repro.CallParams(t.Name, cc.args))
			cr.toolCheck(bctx, cc, &c)
		}
		out = append(out, c)
		cr.progress(&out[len(out)-1])
	}
	if ctx.Err() == nil {
		out = append(out, cr.sessionChecks(bctx, sample)...)
		for i := len(out) - 2; i < len(out); i++ {
			cr.progress(&out[i])
		}
	}
	return out, cr.lateAnswers
}

func (cr *concurrencyRun) progress(c *report.Check) {
	if cr.cfg.Progress != nil {
		cr.cfg.Progress(Event{Kind: EventCheck, Check: c})
	}
}

// concurrencyCall is the valid call of a tool the checks make again.
type concurrencyCall struct {
	t       tool
	args    json.RawMessage
	verdict report.Verdict // the audit's verdict of the valid case
	caseID  string
}

// eligible returns the valid call of t to make again, or why t is skipped:
// only a confirmed tool (its valid call succeeded alone, so that failures
// together prove something) safe to call again ([mcptool.Tool.RetrySafe]), with
// arguments the report stores whole.
func (cr *concurrencyRun) eligible(t tool, rt report.Tool) (*concurrencyCall, string) {
	i := slices.IndexFunc(rt.Cases, func(c report.Case) bool { return c.Kind == report.KindValid })
	switch {
	case rt.SkipReason != "":
		return nil, "not tested: " + rt.SkipReason
	case i < 0:
		return nil, "no valid call was made"
	case !rt.Confirmed:
		return nil, fmt.Sprintf("not confirmed: its valid call did not succeed alone (%s), so failures together would prove nothing", rt.Cases[i].Verdict)
	case t.TaskSupport == "required":
		return nil, "task-only tool: the concurrency checks make plain calls, which it refuses by design"
	case !t.RetrySafe():
		why := "annotated neither readOnlyHint true nor destructiveHint false"
		if t.Destructive != nil && *t.Destructive {
			why = "annotated destructiveHint true"
		}
		return nil, fmt.Sprintf("%s: calling it %d more times at once may not be harmless", why, cr.n)
	}
	c := rt.Cases[i]
	if c.ArgumentsDigest != nil || len(c.Arguments) > report.MaxInlineArguments {
		return nil, fmt.Sprintf("its valid call's arguments are over %d bytes and stored compacted, so the check's request could not be shown whole", report.MaxInlineArguments)
	}
	return &concurrencyCall{t: t, args: c.Arguments, verdict: c.Verdict, caseID: c.ID}, ""
}

// budgetSpent is the skip detail of a check the time budget left no room
// for ("" while there is room).
func (cr *concurrencyRun) budgetSpent() string {
	if time.Now().Before(cr.deadline) {
		return ""
	}
	return fmt.Sprintf("not run: the concurrency checks' time budget of %s was spent", concurrencyBudget)
}

// open starts n sessions at once and returns those that started, and why
// the others did not (redacted).
func (cr *concurrencyRun) open(ctx context.Context, n int) ([]*session, []string) {
	sessions := make([]*session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, cr.cfg.StartupTimeout)
			defer cancel()
			sessions[i], errs[i] = cr.cn.connect(sctx)
		}()
	}
	wg.Wait()
	var live []*session
	var why []string
	for i, s := range sessions {
		if s != nil {
			live = append(live, s)
		} else if errs[i] != nil {
			why = append(why, excerpt(cr.cn.leak.Redact(errs[i].Error()), 200))
		}
	}
	return live, why
}

// closeAll closes sessions, together, and counts their late answers. A
// server that ignores SIGTERM costs a kill grace to stop: one after
// another, the N servers of a check would cost N of them, past the
// checks' budget (which is spent before the sessions close).
func (cr *concurrencyRun) closeAll(sessions []*session) {
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		s.mu.Lock()
		cr.lateAnswers += s.lateAnswers
		s.mu.Unlock()
	}
}

// concurrentCall is one call of a concurrency check, judged.
type concurrentCall struct {
	verdict report.Verdict
	detail  string
	crash   *report.CrashInfo
	ms      float64
}

// toolCheck makes the valid call cc on n fresh sessions at once and judges
// the answers into c.
func (cr *concurrencyRun) toolCheck(ctx context.Context, cc *concurrencyCall, c *report.Check) {
	if why := cr.budgetSpent(); why != "" {
		c.Status, c.Detail = report.CheckSkip, why
		return
	}
	sessions, why := cr.open(ctx, cr.n)
	defer cr.closeAll(sessions)
	if len(sessions) < 2 {
		c.Status = report.CheckSkip
		c.Detail = fmt.Sprintf("not run: only %d of %d sessions could be started", len(sessions), cr.n)
		if len(why) > 0 {
			c.Detail += " (" + why[0] + ")"
		}
		return
	}
	calls := make([]concurrentCall, len(sessions))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			calls[i] = cr.call(ctx, s, cc)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	c.DurationMs = float64(time.Since(began).Microseconds()) / 1000
	judgeConcurrent(cc, calls, cr.n, why, c)
}

// call makes the valid call cc on s and judges it as a valid case.
func (cr *concurrencyRun) call(ctx context.Context, s *session, cc *concurrencyCall) concurrentCall {
	params := repro.CallParams(cc.t.Name, cc.args)
	before, _ := s.beginCall()
	raw, secrets, ms, err := s.timedCall(ctx, cr.cfg.callTimeout(cc.t.Name), func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.call(cctx, "tools/call", params)
	})
	o := s.outcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.waitExit(2 * time.Second)
	}
	violations, inViolations := s.endCall(before)
	o.Violations, o.Secrets = violations, append(secrets, inViolations...)
	j := oracle.Judge(oracle.Case{
		Kind: casegen.Valid,
		// The arguments succeeded alone: an error now is no
		// synthetic-input false positive.
		FromExample: true,
		Validate:    cc.t.OutputValidator(),
		Args:        cc.args,
		Leak:        cr.cn.leak,
		MaxResponse: cr.cfg.MaxResponse,
	}, o)
	out := concurrentCall{verdict: j.Verdict, detail: j.Detail, ms: ms}
	if j.Verdict.Failure() {
		out.crash = &report.CrashInfo{How: j.Crash}
		if s.proc != nil {
			out.crash.ExitStatus = s.proc.ExitStatus()
			out.crash.Stderr = cr.tail.stderrTail(s.proc.Stderr())
		}
	}
	return out
}

// judgeConcurrent decides a tool's concurrency check from its calls made
// at once (n asked for; notStarted says why some sessions did not start).
// A crash, hang or protocol violation is the check's code unless the call
// alone failed the same way (then it is no news); else any call that did
// not succeed, where the call alone did, is a concurrency failure.
func judgeConcurrent(cc *concurrencyCall, calls []concurrentCall, n int, notStarted []string, c *report.Check) {
	var failed []int
	worst := -1
	for i, call := range calls {
		if call.verdict == report.NotRun {
			c.Status, c.Detail = report.CheckSkip, "not judged: the run was interrupted, or the concurrency checks' time budget ran out, during the calls"
			return
		}
		if call.verdict.Confirms() {
			continue
		}
		failed = append(failed, i)
		if call.verdict.Failure() && (worst < 0 || report.CodeRank(string(call.verdict)) < report.CodeRank(string(calls[worst].verdict))) {
			worst = i
		}
	}
	started := ""
	if len(calls) < n {
		started = fmt.Sprintf(" (%d of %d sessions started: %s)", len(calls), n, strings.Join(notStarted, "; "))
	}
	alone := fmt.Sprintf("the call alone was %s (case %s)", cc.verdict, cc.caseID)
	if len(failed) == 0 {
		c.Status = report.CheckPass
		c.Detail = fmt.Sprintf("all %d calls made at once succeeded%s", len(calls), started)
		return
	}
	var parts []string
	for k, i := range failed {
		if k == maxConcurrencyDetail {
			parts = append(parts, fmt.Sprintf("and %d more", len(failed)-k))
			break
		}
		parts = append(parts, fmt.Sprintf("call %d: %s (%s)", i+1, calls[i].verdict, excerpt(orText(calls[i].detail, "no detail"), 160)))
	}
	detail := fmt.Sprintf("%d of %d calls made at once did not succeed, %s: %s%s", len(failed), len(calls), alone, strings.Join(parts, "; "), started)
	switch {
	case worst >= 0 && calls[worst].verdict == cc.verdict:
		// The audit reported this failure of the call alone already.
		c.Status, c.Detail = report.CheckPass, "not flagged again: the call fails the same way alone; "+detail
	case worst >= 0:
		c.Status, c.Code, c.Detail, c.Crash = report.CheckFail, string(calls[worst].verdict), detail, calls[worst].crash
	default:
		c.Status, c.Code, c.Detail = report.CheckFail, report.CodeConcurrencyFailure, detail
	}
}

// inFlight is one request of the same-session check.
type inFlight struct {
	method string
	params json.RawMessage
	raw    json.RawMessage
	err    error
}

// sessionChecks runs concurrency/same-session and concurrency/cancel on a
// session of their own: sample's tools/call (nil: ping) alternates with
// tools/list, whose answers no server could mistake for each other.
func (cr *concurrencyRun) sessionChecks(ctx context.Context, sample *concurrencyCall) []report.Check {
	same := report.Check{ID: concurrencyGroup + "/same-session", Group: concurrencyGroup,
		Title:    fmt.Sprintf("%d requests in flight together on one session each get their own answer", cr.n),
		Expected: "one answer per request, under its id, of the request's kind"}
	cancel := report.Check{ID: concurrencyGroup + "/cancel", Group: concurrencyGroup,
		Title:    "after a request in flight is cancelled (notifications/cancelled), the session answers the next one",
		Expected: "an answer to the next request"}
	other, otherParams := "ping", json.RawMessage(nil)
	if sample != nil {
		other, otherParams = "tools/call", repro.CallParams(sample.t.Name, sample.args)
	}
	if why := cr.budgetSpent(); why != "" {
		same.Status, same.Detail = report.CheckSkip, why
		cancel.Status, cancel.Detail = report.CheckSkip, why
		return []report.Check{same, cancel}
	}
	sessions, why := cr.open(ctx, 1)
	defer cr.closeAll(sessions)
	if len(sessions) == 0 {
		same.Status, same.Detail = report.CheckSkip, "not run: the session could not be started: "+strings.Join(why, "; ")
		cancel.Status, cancel.Detail = report.CheckSkip, same.Detail
		return []report.Check{same, cancel}
	}
	s := sessions[0]
	same.Request = protocheck.RequestLine(other, otherParams)
	alive := cr.sameSession(ctx, s, other, otherParams, &same)
	if !alive {
		cancel.Status, cancel.Detail = report.CheckSkip, "not run: the session did not survive "+same.ID
		return []report.Check{same, cancel}
	}
	method, params := other, otherParams
	if sample == nil {
		method, params = "tools/list", json.RawMessage(`{}`)
	}
	cancel.Request = protocheck.RequestLine(method, params)
	cr.cancelCheck(ctx, s, method, params, &cancel)
	return []report.Check{same, cancel}
}

// sameSession sends cr.n requests at once on s, tools/list and other
// alternately, and judges into c whether each answer reached its own
// request. It reports whether s is still usable.
func (cr *concurrencyRun) sameSession(ctx context.Context, s *session, other string, otherParams json.RawMessage, c *report.Check) bool {
	reqs := make([]inFlight, cr.n)
	for i := range reqs {
		reqs[i] = inFlight{method: "tools/list", params: json.RawMessage(`{}`)}
		if i%2 == 1 {
			reqs[i] = inFlight{method: other, params: otherParams}
		}
	}
	before, _ := s.beginCall()
	s.mu.Lock()
	lateBefore := s.lateAnswers
	s.mu.Unlock()
	// JSON-RPC does not ask a server to work on requests at once: one
	// that answers them one after another, each in time, is no hang. The
	// requests still in flight are given up on only once no answer came
	// for --timeout (a stall), not --timeout after they were all sent.
	stall := newStallWatch(ctx, cr.cfg.Timeout)
	start := make(chan struct{})
	var wg sync.WaitGroup
	began := time.Now()
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var params any
			if reqs[i].params != nil {
				params = reqs[i].params
			}
			reqs[i].raw, _, reqs[i].err = s.call(stall.ctx, reqs[i].method, params)
			switch {
			case ctx.Err() != nil:
			case stall.stalled() && errors.Is(reqs[i].err, context.Canceled):
				reqs[i].err = errHung
			default:
				stall.progress()
			}
		}()
	}
	close(start)
	wg.Wait()
	stall.stop()
	c.DurationMs = float64(time.Since(began).Microseconds()) / 1000
	// A duplicated answer may come just after the last awaited one.
	time.Sleep(50 * time.Millisecond)
	violations, _ := s.endCall(before)
	s.mu.Lock()
	late := s.lateAnswers - lateBefore
	s.mu.Unlock()
	return cr.judgeSameSession(ctx, s, reqs, violations, late, c)
}

// errHung marks a request of a session check that got no answer in time.
var errHung = errors.New("no answer within --timeout")

// stallWatch gives up on requests in flight together once none of them
// was answered for a whole timeout: its ctx is cancelled then.
type stallWatch struct {
	ctx    context.Context
	cancel context.CancelFunc
	limit  time.Duration

	mu   sync.Mutex
	last time.Time // the last answer (or the start)
	done chan struct{}
	hit  chan struct{} // closed on a stall
}

func newStallWatch(parent context.Context, limit time.Duration) *stallWatch {
	w := &stallWatch{limit: limit, last: time.Now(), done: make(chan struct{}), hit: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(parent)
	go w.watch()
	return w
}

func (w *stallWatch) watch() {
	for {
		w.mu.Lock()
		wait := time.Until(w.last.Add(w.limit))
		w.mu.Unlock()
		if wait <= 0 {
			close(w.hit)
			w.cancel()
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-w.done:
			t.Stop()
			return
		}
	}
}

// progress notes an answer: the next stall is a timeout from now.
func (w *stallWatch) progress() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
}

// stalled reports whether the requests were given up on.
func (w *stallWatch) stalled() bool { return isDone(w.hit) }

// stop ends the watch once every request returned.
func (w *stallWatch) stop() {
	close(w.done)
	w.cancel()
}

// judgeSameSession decides the same-session check from the answers of
// reqs, the violations on the wire and the late (duplicated) answers, and
// reports whether the session is still usable.
func (cr *concurrencyRun) judgeSameSession(ctx context.Context, s *session, reqs []inFlight, violations []string, late int, c *report.Check) bool {
	var mixed []string
	closed, hung := 0, 0
	for i, r := range reqs {
		var rpcErr *rpc.Error
		switch {
		case errors.Is(r.err, errHung):
			hung++
		case errors.Is(r.err, rpc.ErrClosed):
			closed++
		case ctx.Err() != nil:
			c.Status, c.Detail = report.CheckSkip, "not judged: the run was interrupted, or the concurrency checks' time budget ran out"
			return false
		case errors.As(r.err, &rpcErr):
		case r.err != nil:
			// An oversize answer, or one cut short: not a mix-up.
		default:
			if why := wrongKind(r.method, r.raw); why != "" {
				mixed = append(mixed, fmt.Sprintf("request %d (%s) was answered with %s", i+1, r.method, why))
			}
		}
	}
	switch {
	case closed > 0:
		how, what := report.CrashClosed, "the connection closed"
		if st := s.waitExit(2 * time.Second); st != "" {
			how, what = report.CrashExit, "the server exited ("+st+")"
		}
		c.Status, c.Code, c.Crash = report.CheckFail, string(report.Crash), &report.CrashInfo{How: how}
		c.Detail = fmt.Sprintf("%s with %d of %d requests in flight together unanswered", what, closed, len(reqs))
		if s.proc != nil {
			c.Crash.ExitStatus = s.proc.ExitStatus()
			c.Crash.Stderr = cr.tail.stderrTail(s.proc.Stderr())
		}
		return false
	case len(violations) > 0 || late > 0 || len(mixed) > 0:
		var parts []string
		parts = append(parts, violations...)
		if late > 0 {
			parts = append(parts, plural(late, "answer came", "answers came")+" to an id already answered (a duplicated id)")
		}
		if len(mixed) > maxConcurrencyDetail {
			mixed = append(mixed[:maxConcurrencyDetail], fmt.Sprintf("and %d more", len(mixed)-maxConcurrencyDetail))
		}
		parts = append(parts, mixed...)
		c.Status, c.Code = report.CheckFail, string(report.ProtocolViolation)
		c.Detail = fmt.Sprintf("with %d requests in flight together, answers did not reach their own requests: %s", len(reqs), strings.Join(parts, "; "))
		return hung == 0 && !isDone(s.client.Done())
	case hung > 0:
		c.Status, c.Code = report.CheckFail, string(report.Hang)
		c.Detail = fmt.Sprintf("%d of %d requests in flight together got no answer: none came for --timeout %s", hung, len(reqs), cr.cfg.Timeout)
		return false
	}
	c.Status = report.CheckPass
	c.Detail = fmt.Sprintf("%d requests in flight together (%s alternately) each got one answer, under its own id, of its own kind", len(reqs), strings.Join(methodsOf(reqs), " and "))
	return true
}

func methodsOf(reqs []inFlight) []string {
	var out []string
	for _, r := range reqs {
		if !slices.Contains(out, r.method) {
			out = append(out, r.method)
		}
	}
	return out
}

// wrongKind says why raw, a successful answer, cannot be the answer to a
// request of method ("" when it can): a tools/list result has tools, and
// no other result of the checks does; a ping result has no content.
func wrongKind(method string, raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return "a result that is not an object: " + excerpt(string(raw), 80)
	}
	_, tools := m["tools"]
	_, content := m["content"]
	switch {
	case method == "tools/list" && !tools:
		return "a result without tools, not a tools/list result: " + excerpt(string(raw), 80)
	case method != "tools/list" && tools:
		return "a tools/list result: " + excerpt(string(raw), 80)
	case method == "ping" && content:
		return "a tools/call result: " + excerpt(string(raw), 80)
	}
	return ""
}

// cancelCheck sends method on s and gives up on it as soon as it is
// written (notifications/cancelled), then sends tools/list: the session
// must answer it.
func (cr *concurrencyRun) cancelCheck(ctx context.Context, s *session, method string, params json.RawMessage, c *report.Check) {
	cctx, cancel := context.WithCancel(ctx)
	_, _, err := s.call(rpc.WithSent(cctx, cancel), method, params)
	cancel()
	how := "cancelled while in flight"
	if !errors.Is(err, context.Canceled) || ctx.Err() != nil {
		how = "answered before the cancellation could be sent; notifications/cancelled was not needed"
	}
	if ctx.Err() != nil {
		c.Status, c.Detail = report.CheckSkip, "not judged: the run was interrupted, or the concurrency checks' time budget ran out"
		return
	}
	before, _ := s.beginCall()
	raw, _, ms, err := s.timedCall(ctx, cr.cfg.Timeout, func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.call(cctx, "tools/list", json.RawMessage(`{}`))
	})
	c.DurationMs = ms
	o := s.outcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.waitExit(2 * time.Second)
	}
	o.Violations, _ = s.endCall(before)
	// Any answer will do, a JSON-RPC error included: the session lives.
	protocheck.Judge(protocheck.Expectation{ServedOK: func(json.RawMessage) bool { return true }}, o, protocheck.HTTPAnswer{}, c)
	if c.Status == report.CheckPass {
		c.Detail = fmt.Sprintf("the %s request was %s; the next request was answered", method, how)
	} else {
		c.Detail = fmt.Sprintf("the %s request was %s; then the next request: %s", method, how, c.Detail)
		if c.Crash != nil && s.proc != nil {
			c.Crash.ExitStatus = s.proc.ExitStatus()
			c.Crash.Stderr = cr.tail.stderrTail(s.proc.Stderr())
		}
	}
}
