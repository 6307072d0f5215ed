package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/learn"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
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
	params := mcptool.CallParams(t.Name, c.Arguments)
	endedBefore := s.Client.Ended()
	var written int64
	if s.Proc != nil {
		written = s.Proc.InputWritten()
	}
	violationsBefore, panicsBefore := s.BeginCall()
	limit := r.cfg.callTimeout(t.Name)
	var taskState string
	raw, secretsSeen, ms, err := s.TimedCall(ctx, limit, func(cctx context.Context) (json.RawMessage, []string, error) {
		if t.TaskSupport == "required" {
			// Refused as a plain call: the call, tasks/get, tasks/result.
			return s.TaskCall(cctx, params, limit, &taskState)
		}
		return s.Call(cctx, "tools/call", params)
	})
	rc.DurationMs = ms
	rc.Task = t.TaskSupport == "required"

	o := s.OutcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.WaitExit(2 * time.Second)
		unsent := s.Unsent(endedBefore, written)
		if unsent && detect {
			s.EndCall(violationsBefore)
			return r.leaveGone()
		}
		o.Unsent = unsent
	}
	violations, inViolations := s.EndCall(violationsBefore)
	o.Violations = violations
	o.Secrets = append(secretsSeen, inViolations...)
	_, panics := s.Marks()
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
	if c.Kind == casegen.Security {
		r.reply = reply(j, o)
	}
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
	if rc.Crash != nil && s.Proc != nil {
		// After closeSession the exit status and the stderr tail are
		// complete; for a live server they are what it said so far.
		rc.Crash.ExitStatus = s.Proc.ExitStatus()
		rc.Crash.Stderr = r.stderrTail(s.Proc.Stderr())
	}
	return nil
}

// settle keeps or ends the session s after a call's outcome o. The verdict
// does not decide restarts (docs/BEHAVIOUR.md#the-oracle): an answer, any JSON-RPC error
// included, means the session is alive. Only a closed connection, or no
// answer followed by a failed liveness request, ends it.
func (r *runner) settle(ctx context.Context, s *session.Session, o oracle.Outcome) {
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

// leaveGone closes a session whose server exited, or closed the
// connection, without reading the last request, and says how it ended.
func (r *runner) leaveGone() *serverGone {
	s := r.s
	g := &serverGone{prev: r.last}
	r.closeSession()
	if s.Proc != nil {
		g.exitStatus = s.Proc.ExitStatus()
		g.stderr = r.stderrTail(s.Proc.Stderr())
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
	endedBefore := s.Client.Ended()
	var written int64
	if s.Proc != nil {
		written = s.Proc.InputWritten()
	}
	pctx, cancel := context.WithTimeout(ctx, min(pingTimeout, r.cfg.Timeout))
	_, _, err := s.Liveness(pctx)
	cancel()
	if !errors.Is(err, rpc.ErrClosed) {
		return nil
	}
	s.WaitExit(2 * time.Second)
	if !s.Unsent(endedBefore, written) {
		return nil
	}
	return r.leaveGone()
}

// pingTimeout bounds the liveness check after a call that got no answer.
const pingTimeout = 2 * time.Second

// alive reports whether s still answers: after a hung call (for which the
// client has sent notifications/cancelled), a ping must get an answer, any
// answer, -32601 from a server of an era without ping included.
func (r *runner) alive(ctx context.Context, s *session.Session) bool {
	if ctx.Err() != nil {
		return false
	}
	pctx, cancel := context.WithTimeout(ctx, min(pingTimeout, r.cfg.Timeout))
	defer cancel()
	_, _, err := s.Liveness(pctx)
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
