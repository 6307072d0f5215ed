package session

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// TimedCall makes one call with send within limit, cut short by a
// protocol violation while it is in flight (see [Session.InCall]), and
// says how long it took, in milliseconds.
func (s *Session) TimedCall(ctx context.Context, limit time.Duration, send func(context.Context) (json.RawMessage, []string, error)) (json.RawMessage, []string, float64, error) {
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	s.InCall(cancel)
	start := time.Now()
	raw, found, err := send(cctx)
	ms := float64(time.Since(start).Microseconds()) / 1000
	s.InCall(nil)
	return raw, found, ms, err
}

// OutcomeOf sorts the answer of a call made with ctx (raw, err from
// [Session.Call]) into an outcome. A closed connection is only marked: the
// caller decides whether the request ever reached the server.
func (s *Session) OutcomeOf(ctx context.Context, raw json.RawMessage, err error) oracle.Outcome {
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
		o.PendingLine = s.PendingLine()
	case errors.Is(err, context.Canceled):
		// Cut short by a protocol violation: the answer, if any, was garbage.
		o.CutShort = true
	default:
		o.Closed = true
	}
	return o
}

// Unsent reports, once a call failed for a closed connection, whether its
// request never reached a live server (see the engine's call of a case): the
// connection had ended before the call began (endedBefore), or the process
// exited without reading a byte past written, the input offset of the
// request. The process has been given time to exit ([Session.WaitExit]).
func (s *Session) Unsent(endedBefore bool, written int64) bool {
	if endedBefore {
		return true
	}
	if s.Proc == nil {
		return false
	}
	read, ok := s.Proc.InputReadAtExit()
	return ok && read <= written
}

// WaitExit gives a dying process a moment to be reaped and returns how it
// ended ("" when it is still running or over HTTP).
func (s *Session) WaitExit(d time.Duration) string {
	if s.Proc == nil {
		return ""
	}
	select {
	case <-s.Proc.Done():
	case <-time.After(d):
	}
	return s.Proc.ExitStatus()
}
