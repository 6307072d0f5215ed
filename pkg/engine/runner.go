package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/lint"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/security"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// runner calls the cases of a sequence of tools on one session at a time,
// reconnecting after a case that broke the session.
type runner struct {
	cfg  Config
	cn   *session.Dialer
	s    *session.Session // nil after a failure, until the next case reconnects
	leak *leak.Detector

	endedEarly string
	// lateAnswers counts answers to requests already answered or abandoned,
	// over the sessions this runner closed.
	lateAnswers int
	// timedOut is set by runCase when the call got no complete answer
	// within its deadline (a hang, or an answer that never ended).
	timedOut bool
	// lastText is the text of the last valid call's answer, cut to
	// [learn.MaxText]: a result's text or an error's message and data, for
	// learning. It is the server's raw text: learning drops any value that
	// carries a secret before using it (see usableValue).
	lastText string
	// lastAnswer is the result of the last call that succeeded or
	// answered isError (nil otherwise): the lifecycle checks read the id
	// of what a create tool made from its text and structured content.
	lastAnswer *oracle.CallResult
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

	// probes are the current tool's security cases by case id, replies
	// their answers, and reply the answer of the last security case
	// (see [runner.judgeSecurity]).
	probes  map[string]security.Probe
	replies map[string]security.Answer
	reply   security.Answer
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
		r.s.Close()
		r.s.Mu.Lock()
		r.lateAnswers += r.s.LateAnswers
		r.s.Mu.Unlock()
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
		s, err := r.cn.Connect(sctx)
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

// era is the era the run speaks: the one its first session negotiated
// (or --era), kept by the dialer, since r.s may be closed.
func (r *runner) era() string {
	switch {
	case r.cn != nil && r.cn.Era() != "" && r.cn.Era() != EraAuto:
		return r.cn.Era()
	case r.s != nil:
		return r.s.Era
	}
	return ""
}

// runTool runs the cases of t into rt, which stays where it is until the
// run ends: a server that exits right after answering the last call of t
// is blamed on that call's case in rt when the next tool's first call
// finds it gone (see [runner.blame]). It returns the problems of t's
// input schema that case generation met (none for a tool not called).
func (r *runner) runTool(ctx context.Context, t tool, rt *report.Tool) (schemaLint []report.Lint) {
	*rt = report.Tool{Name: t.Name, Description: t.Description, Cases: []report.Case{}}
	reason := r.cfg.skipReason(t)
	if reason == "" {
		reason = taskSkipReason(t, r.era())
	}
	if reason == "" {
		reason = r.cn.ParamSkipReason(t)
	}
	if reason != "" {
		rt.SkipReason = reason
		r.progress(Event{Kind: EventSkip, Tool: t.Name, Reason: reason})
		return
	}
	rt.Tested = true
	schema, _ := t.Compiled()
	schemaLint = lint.SchemaProblems(t.Name, schema)
	example, fromExample := r.cfg.Examples[t.Name]
	plan := casegen.Generate(t.Name, schema, casegen.Options{
		Seed:       r.cfg.Seed,
		Budget:     r.cfg.Cases,
		Example:    example,
		Aggressive: r.cfg.Profile == "aggressive",
	})
	rt.Dropped = plan.Dropped
	validateOutput := t.OutputValidator()
	r.progress(Event{Kind: EventTool, Tool: t.Name, Total: len(plan.Cases)})
	// After MaxHangs calls that timed out (a hang, or an answer that never
	// ended), a tool's remaining cases are not run: each would cost a whole
	// --timeout, and the finding is already made.
	hangs, cutOff, lastHang := 0, 0, -1
	for i := 0; i < len(plan.Cases); i++ {
		c := plan.Cases[i]
		if c.Kind == casegen.Security && r.cfg.MaxHangs > 0 && hangs >= r.cfg.MaxHangs {
			// Left out rather than listed as not run: they were only
			// ever extra cases on top of the tool's own.
			continue
		}
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
			if !r.cfg.started.IsZero() {
				rc.StartedMs = float64(time.Since(r.cfg.started).Microseconds()) / 1000
			}
			r.owner = &callRef{tool: t.Name, c: &rc}
			if c.Kind == casegen.Valid {
				r.owner.run = 1
			}
			r.runCase(ctx, t, c, &rc, fromExample, validateOutput)
			if c.Kind == casegen.Security {
				r.judgeSecurity(&rc)
			}
			if c.Kind != casegen.Valid {
				break
			}
			if rc.Verdict == report.Errored && !fromExample && !r.timedOut && t.RetrySafe() && r.learn != nil {
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
			if !rc.Verdict.Failure() {
				// The security cases go last, on the valid call's
				// arguments (learned ones included).
				plan.Cases = append(plan.Cases, r.securityCases(t, schema, c)...)
			}
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
	r.finishSecurity(rt)
	if cutOff > 0 {
		c := &rt.Cases[lastHang]
		c.Detail += fmt.Sprintf("; after %s without a complete answer the tool's remaining %s not run (--max-hangs %d)",
			plural(hangs, "case", "cases"), plural(cutOff, "case was", "cases were"), r.cfg.MaxHangs)
	}
	return schemaLint
}

// runCase sends one case, gathers what came back, has the oracle judge it
// (see [oracle.Judge]) and records the judgement in rc. It keeps the session only
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
	rc.Detail = oracle.JoinDetail(rc.Detail, "sent again to a restarted server: "+why)
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
		c.Detail = oracle.JoinDetail(c.Detail, "then "+strings.TrimPrefix(what, "the server "))
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
			c.Timing.Note = oracle.JoinDetail(c.Timing.Note, fmt.Sprintf("the server %s right after answering run %d", g.how(), ref.run))
		}
	}
	if ref.c == nil {
		// Reported already: it is reported again, now a failure.
		r.progress(Event{Kind: EventCase, Tool: ref.tool, Case: c})
	}
	return fmt.Sprintf("the server had %s right after answering the previous call (%s, case %s)", g.how(), ref.tool, c.ID)
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
