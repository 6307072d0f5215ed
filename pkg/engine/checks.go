package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Protocol checks (docs/BEHAVIOUR.md#checks-beyond-single-calls) test the server's protocol layer rather than
// a tool: each sends one request that a conforming server refuses in a
// given way, on a session of its own, after the tools were called (so that
// nothing a check does to the server changes a tool's verdicts).

// checkBudget bounds the requests of the protocol checks together: a
// server that answers each just under the timeout, or must be restarted
// after each, costs this much, not a timeout (or a start) per check.
var checkBudget = 30 * time.Second

// maxCheckHangs is how many checks may hang before the rest are skipped: a
// server that hangs on malformed requests costs a few timeouts, not one
// per check.
const maxCheckHangs = 2

// checkRun runs protocol checks on a session of its own.
type checkRun struct {
	r     *runner
	hangs int
}

// newCheckRun is a check run that goes on with the session of r, the
// runner of the audit's first worker (a check that breaks it connects
// another).
func newCheckRun(r *runner) *checkRun {
	// A case of the audit is no longer the owner of what this session
	// answers.
	r.owner, r.last = nil, nil
	return &checkRun{r: r}
}

// run sends each check's request and judges its answer, in order.
func (cr *checkRun) run(ctx context.Context, checks []protocheck.Check) []report.Check {
	out := make([]report.Check, 0, len(checks))
	cr.r.progress(Event{Kind: EventChecks, Total: len(checks)})
	defer func() {
		for i := range out {
			cr.r.progress(Event{Kind: EventCheck, Check: &out[i]})
		}
	}()
	deadline := time.Now().Add(checkBudget)
	// A restart may take its whole --startup-timeout: the budget bounds it
	// too.
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for _, pc := range checks {
		c := report.Check{ID: pc.ID, Group: protocheck.GroupOf(pc.ID), Title: pc.Title, Expected: pc.Expected}
		switch {
		case ctx.Err() != nil:
			return out
		case pc.Skip != "":
			c.Status, c.Detail = report.CheckSkip, pc.Skip
		case cr.hangs >= maxCheckHangs:
			c.Status, c.Detail = report.CheckSkip, fmt.Sprintf("not run: the server did not answer %d checks before this one", cr.hangs)
		case time.Now().After(deadline):
			c.Status, c.Detail = report.CheckSkip, fmt.Sprintf("not run: the protocol checks' time budget of %s was spent", checkBudget)
		case !cr.r.ensureSession(rctx):
			c.Status, c.Detail = report.CheckSkip, "not run: "+orText(cr.r.endedEarly, fmt.Sprintf("restarting the server did not finish within the protocol checks' time budget of %s", checkBudget))
		default:
			cr.check(ctx, pc, &c)
		}
		out = append(out, c)
	}
	return out
}

// check sends pc's request on the runner's session and judges the answer
// into c.
func (cr *checkRun) check(ctx context.Context, pc protocheck.Check, c *report.Check) {
	r := cr.r
	s := r.s
	shown := pc.Req.Params
	if pc.Req.Shown != nil {
		shown = pc.Req.Shown
	}
	c.Request = protocheck.RequestLine(pc.Req.Method, shown)
	for k, vs := range pc.Req.Headers {
		v := ""
		if len(vs) > 0 {
			v = vs[0]
		}
		c.Headers = append(c.Headers, k+": "+v)
	}
	slices.Sort(c.Headers)
	violationsBefore, _ := s.BeginCall()
	if pc.Req.Notify {
		cr.notify(ctx, pc, c, violationsBefore)
		return
	}
	// The Mcp-Param headers come with the call's context (see
	// [session.Session.CallOnce]); the check's own replace them.
	probe := &session.HTTPProbe{Headers: repro.CheckHeaders(pc.Req.Method, pc.Req.Params, pc.Req.Headers, s.Init.ProtocolVersion, nil)}
	raw, _, ms, err := s.TimedCall(ctx, min(protocheck.Timeout, r.cfg.Timeout), func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.CallOnce(context.WithValue(cctx, session.ProbeKey{}, probe), pc.Req.Method, pc.Req.Params)
	})
	c.DurationMs = ms
	o := s.OutcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.WaitExit(2 * time.Second)
	}
	o.Violations, _ = s.EndCall(violationsBefore)
	if o.Hung || o.Unended() {
		cr.hangs++
	}
	ctype, _ := probe.ContentType.Load().(string)
	judged := o
	if e := probe.RPCErr.Load(); o.Closed && e != nil {
		// An HTTP error whose body holds a JSON-RPC error the client could
		// not match to the request (id null): the refusal it is.
		judged.Closed, judged.RPCErr = false, e
	}
	protocheck.Judge(pc.Expect, judged, protocheck.HTTPAnswer{Status: int(probe.Status.Load()), ContentType: ctype}, c)
	r.settle(ctx, s, o)
	if c.Crash != nil && s.Proc != nil {
		c.Crash.ExitStatus = s.Proc.ExitStatus()
		c.Crash.Stderr = r.stderrTail(s.Proc.Stderr())
	}
}

// noticeWait is how long a check sent as a notification waits for an
// answer that must not come.
const noticeWait = 500 * time.Millisecond

// notify sends pc's request as a notification and judges what came back
// within [noticeWait]: nothing is the pass.
func (cr *checkRun) notify(ctx context.Context, pc protocheck.Check, c *report.Check, violationsBefore int) {
	s := cr.r.s
	line := []byte(`{"jsonrpc":"2.0","method":`)
	line = append(line, mustJSON(pc.Req.Method)...)
	if pc.Req.Params != nil {
		line = append(append(line, `,"params":`...), pc.Req.Params...)
	}
	c.Request = append(line, '}')
	start := time.Now()
	err := s.Client.Notify(ctx, pc.Req.Method, pc.Req.Params)
	if err == nil {
		t := time.NewTimer(noticeWait)
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-s.Client.Done():
		}
		t.Stop()
	}
	c.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	o := oracle.Outcome{Hung: true}
	if err != nil || s.Client.Ended() {
		o = oracle.Outcome{Closed: true, ExitStatus: s.WaitExit(2 * time.Second)}
	}
	o.Violations, _ = s.EndCall(violationsBefore)
	protocheck.Judge(pc.Expect, o, protocheck.HTTPAnswer{}, c)
	cr.r.settle(ctx, s, oracle.Outcome{Closed: o.Closed})
}
