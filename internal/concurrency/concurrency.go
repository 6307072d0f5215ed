// Package concurrency runs the concurrency checks (--concurrency N; see
// docs/BEHAVIOUR.md#checks-beyond-single-calls) after the tools and the
// protocol checks, each on sessions of its own, opened by the audit's
// [session.Dialer]:
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
package concurrency

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// group is the group of the concurrency checks' ids.
const group = report.CheckGroupConcurrency

// budget bounds the concurrency checks together: starting N servers for
// each tool, and a tool whose calls hang together, cost this much at most,
// not a timeout (and N starts) per tool.
const budget = 60 * time.Second

// maxDetail bounds how many failed calls a check's detail describes (the
// rest are counted).
const maxDetail = 3

// Options are what the checks take from the audit's settings.
type Options struct {
	// N is --concurrency (2 or more): how many sessions make a tool's call
	// at once, and how many requests are in flight together on one.
	N int
	// Timeout is --timeout: the same-session check gives up once no
	// answer came for this long, and it bounds the cancel check's next
	// request.
	Timeout time.Duration
	// CallTimeout is the deadline of one call to tool (--timeout, or the
	// tool's own).
	CallTimeout func(tool string) time.Duration
	// StartupTimeout bounds the start of each session.
	StartupTimeout time.Duration
	// MaxResponse is --max-response, named in a bloated answer's detail.
	MaxResponse int
	// StderrTail is the end of a server's stderr as a crash in the report
	// shows it, redacted (required: a crash over stdio carries it).
	StderrTail func(stderr string) string
	// Planned, when set, is told before the first check how many checks
	// are planned, and what they do.
	Planned func(total int, what string)
	// Checked, when set, is told of each check once it is decided, in the
	// order of the report.
	Checked func(c *report.Check)
}

// checker runs the concurrency checks of one audit.
type checker struct {
	o        Options
	cn       *session.Dialer
	n        int
	deadline time.Time
	// lateAnswers counts the late answers the sessions saw.
	lateAnswers int
}

// Run runs the concurrency checks on the target of cn after the audit's
// tools (tested, as reported; tools, as listed). It returns the checks, in
// order, and the late answers their sessions saw. Every session it opens
// is closed before it returns.
func Run(ctx context.Context, cn *session.Dialer, tested []report.Tool, tools []mcptool.Tool, o Options) ([]report.Check, int) {
	cr := &checker{o: o, cn: cn, n: o.N, deadline: time.Now().Add(budget)}
	bctx, cancel := context.WithDeadline(ctx, cr.deadline)
	defer cancel()
	byName := map[string]mcptool.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	if o.Planned != nil {
		planned := 0
		for _, rt := range tested {
			if _, ok := byName[rt.Name]; ok && rt.Tested {
				planned++
			}
		}
		o.Planned(planned+2, fmt.Sprintf("concurrency checks (--concurrency %d): %s at once for each tool safe to call again, then %d requests on one session (at most %s)",
			cr.n, words.Plural(cr.n, "session", "sessions"), cr.n, budget))
	}
	var out []report.Check
	var sample *validCall
	for _, rt := range tested {
		t, ok := byName[rt.Name]
		if !ok || !rt.Tested {
			continue
		}
		cc, skip := cr.eligible(t, rt)
		c := report.Check{ID: group + "/" + t.Name, Group: group, Tool: t.Name,
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
			c.Request = protocheck.RequestLine("tools/call", mcptool.CallParams(t.Name, cc.args))
			cr.toolCheck(bctx, cc, &c)
		}
		out = append(out, c)
		cr.checked(&out[len(out)-1])
	}
	if ctx.Err() == nil {
		out = append(out, cr.sessionChecks(bctx, sample)...)
		for i := len(out) - 2; i < len(out); i++ {
			cr.checked(&out[i])
		}
	}
	return out, cr.lateAnswers
}

func (cr *checker) checked(c *report.Check) {
	if cr.o.Checked != nil {
		cr.o.Checked(c)
	}
}

// validCall is the valid call of a tool the checks make again.
type validCall struct {
	t       mcptool.Tool
	args    json.RawMessage
	verdict report.Verdict // the audit's verdict of the valid case
	caseID  string
}

// eligible returns the valid call of t to make again, or why t is skipped:
// only a confirmed tool (its valid call succeeded alone, so that failures
// together prove something) safe to call again ([mcptool.Tool.RetrySafe]),
// with arguments the report stores whole.
func (cr *checker) eligible(t mcptool.Tool, rt report.Tool) (*validCall, string) {
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
	return &validCall{t: t, args: c.Arguments, verdict: c.Verdict, caseID: c.ID}, ""
}

// budgetSpent is the skip detail of a check the time budget left no room
// for ("" while there is room).
func (cr *checker) budgetSpent() string {
	if time.Now().Before(cr.deadline) {
		return ""
	}
	return fmt.Sprintf("not run: the concurrency checks' time budget of %s was spent", budget)
}

// open starts n sessions at once and returns those that started, and why
// the others did not (redacted).
func (cr *checker) open(ctx context.Context, n int) ([]*session.Session, []string) {
	sessions := make([]*session.Session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, cr.o.StartupTimeout)
			defer cancel()
			sessions[i], errs[i] = cr.cn.Connect(sctx)
		}()
	}
	wg.Wait()
	var live []*session.Session
	var why []string
	for i, s := range sessions {
		if s != nil {
			live = append(live, s)
		} else if errs[i] != nil {
			why = append(why, textcut.Excerpt(cr.cn.Leak.Redact(errs[i].Error()), 200))
		}
	}
	return live, why
}

// closeAll closes sessions, together, and counts their late answers. A
// server that ignores SIGTERM costs a kill grace to stop: one after
// another, the N servers of a check would cost N of them, past the
// checks' budget (which is spent before the sessions close).
func (cr *checker) closeAll(sessions []*session.Session) {
	cr.lateAnswers += session.CloseAll(sessions)
}

// judgedCall is one call of a concurrency check, judged.
type judgedCall struct {
	verdict report.Verdict
	detail  string
	crash   *report.CrashInfo
}

// toolCheck makes the valid call cc on n fresh sessions at once and judges
// the answers into c.
func (cr *checker) toolCheck(ctx context.Context, cc *validCall, c *report.Check) {
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
	calls := make([]judgedCall, len(sessions))
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
func (cr *checker) call(ctx context.Context, s *session.Session, cc *validCall) judgedCall {
	params := mcptool.CallParams(cc.t.Name, cc.args)
	before, _ := s.BeginCall()
	raw, secrets, _, err := s.TimedCall(ctx, cr.o.CallTimeout(cc.t.Name), func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.Call(cctx, "tools/call", params)
	})
	o := s.OutcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.WaitExit(2 * time.Second)
	}
	violations, inViolations := s.EndCall(before)
	o.Violations, o.Secrets = violations, append(secrets, inViolations...)
	j := oracle.Judge(oracle.Case{
		Kind: casegen.Valid,
		// The arguments succeeded alone: an error now is no
		// synthetic-input false positive.
		FromExample: true,
		Validate:    cc.t.OutputValidator(),
		Args:        cc.args,
		Leak:        cr.cn.Leak,
		MaxResponse: cr.o.MaxResponse,
	}, o)
	out := judgedCall{verdict: j.Verdict, detail: j.Detail}
	if j.Verdict.Failure() {
		out.crash = &report.CrashInfo{How: j.Crash}
		if s.Proc != nil {
			out.crash.ExitStatus = s.Proc.ExitStatus()
			out.crash.Stderr = cr.o.StderrTail(s.Proc.Stderr())
		}
	}
	return out
}

// judgeConcurrent decides a tool's concurrency check from its calls made
// at once (n asked for; notStarted says why some sessions did not start).
// A crash, hang or protocol violation is the check's code unless the call
// alone failed the same way (then it is no news); else any call that did
// not succeed, where the call alone did, is a concurrency failure.
func judgeConcurrent(cc *validCall, calls []judgedCall, n int, notStarted []string, c *report.Check) {
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
		if k == maxDetail {
			parts = append(parts, fmt.Sprintf("and %d more", len(failed)-k))
			break
		}
		parts = append(parts, fmt.Sprintf("call %d: %s (%s)", i+1, calls[i].verdict, textcut.Excerpt(cmp.Or(calls[i].detail, "no detail"), 160)))
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
