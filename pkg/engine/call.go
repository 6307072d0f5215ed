package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/learn"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

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
	params := repro.CallParams(t.Name, c.Arguments)
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
	if o.Closed {
		o.ExitStatus = s.waitExit(2 * time.Second)
		unsent := s.unsent(endedBefore, written)
		if unsent && detect {
			s.endCall(violationsBefore)
			return r.leaveGone()
		}
		o.Unsent = unsent
	}
	violations, inViolations := s.endCall(violationsBefore)
	o.Violations = violations
	o.Secrets = append(secretsSeen, inViolations...)
	_, panics := s.marks()
	o.StderrPanic = panics > panicsBefore

	j := oracle.Judge(oracle.Case{
		Kind:        c.Kind,
		Forbidden:   c.Forbidden,
		FromExample: fromExample,
		Validate:    validateOutput,
		Args:        c.Arguments,
		Leak:        r.leak,
		MaxResponse: r.cfg.MaxResponse,
	}, o)
	rc.Verdict, rc.Detail, rc.ErrorCode = j.Verdict, j.Detail, j.ErrorCode
	if j.Verdict == report.Hang && taskState != "" {
		rc.Detail = oracle.JoinDetail(rc.Detail, taskState)
	}
	rc.Flags = append(rc.Flags, j.Flags...)
	rc.Response, rc.Size = j.Response, j.Size
	// What learning reads (see [runner.remember]): only valid calls',
	// its own listing calls included.
	r.lastText = ""
	r.lastAnswer = j.Result
	switch {
	case c.Kind != casegen.Valid:
	case j.Result != nil:
		r.lastText = cutUTF8(j.Result.Text, learn.MaxText)
	case o.RPCErr != nil:
		r.lastText = cutUTF8(o.RPCErr.Message+"\n"+string(o.RPCErr.Data), learn.MaxText)
	}
	if j.Verdict.Failure() {
		rc.Crash = &report.CrashInfo{How: j.Crash}
	}
	if r.owner != nil {
		last := *r.owner
		r.last = &last
	} else {
		r.last = nil
	}

	r.timedOut = o.Hung || o.Unended()
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
func (s *session) outcomeOf(ctx context.Context, raw json.RawMessage, err error) oracle.Outcome {
	var o oracle.Outcome
	var rpcErr *rpc.Error
	var over *rpc.Oversize
	switch {
	case err == nil:
		o.Result = raw
	case errors.As(err, &rpcErr):
		o.RPCErr = rpcErr
	case errors.As(err, &over):
		o.Oversize = over
	case ctx.Err() != nil:
		o.Cancelled = true
	case errors.Is(err, context.DeadlineExceeded):
		o.Hung = true
		// Not silence if an answer began and never ended.
		o.PendingLine = s.pendingLine()
	case errors.Is(err, context.Canceled):
		// Cut short by a protocol violation: the answer, if any, was garbage.
		o.CutShort = true
	default:
		o.Closed = true
	}
	return o
}

// settle keeps or ends the session s after a call's outcome o. The verdict
// does not decide restarts (docs/BEHAVIOUR.md#the-oracle): an answer, any JSON-RPC error
// included, means the session is alive. Only a closed connection, or no
// answer followed by a failed liveness request, ends it.
func (r *runner) settle(ctx context.Context, s *session, o oracle.Outcome) {
	switch {
	case o.Closed, o.Unended():
		// An unfinished line leaves the stream mid-message: no later
		// answer could be read, a ping included.
		r.closeSession()
	case o.Hung || o.CutShort:
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
