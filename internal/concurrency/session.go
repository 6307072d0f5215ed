package concurrency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

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
func (cr *checker) sessionChecks(ctx context.Context, sample *validCall) []report.Check {
	same := report.Check{ID: group + "/same-session", Group: group,
		Title:    fmt.Sprintf("%d requests in flight together on one session each get their own answer", cr.n),
		Expected: "one answer per request, under its id, of the request's kind"}
	cancel := report.Check{ID: group + "/cancel", Group: group,
		Title:    "after a request in flight is cancelled (notifications/cancelled), the session answers the next one",
		Expected: "an answer to the next request"}
	other, otherParams := "ping", json.RawMessage(nil)
	if sample != nil {
		other, otherParams = "tools/call", mcptool.CallParams(sample.t.Name, sample.args)
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
func (cr *checker) sameSession(ctx context.Context, s *session.Session, other string, otherParams json.RawMessage, c *report.Check) bool {
	reqs := make([]inFlight, cr.n)
	for i := range reqs {
		reqs[i] = inFlight{method: "tools/list", params: json.RawMessage(`{}`)}
		if i%2 == 1 {
			reqs[i] = inFlight{method: other, params: otherParams}
		}
	}
	before, _ := s.BeginCall()
	s.Mu.Lock()
	lateBefore := s.LateAnswers
	s.Mu.Unlock()
	// JSON-RPC does not ask a server to work on requests at once: one
	// that answers them one after another, each in time, is no hang. The
	// requests still in flight are given up on only once no answer came
	// for --timeout (a stall), not --timeout after they were all sent.
	stall := newStallWatch(ctx, cr.o.Timeout)
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
			reqs[i].raw, _, reqs[i].err = s.Call(stall.ctx, reqs[i].method, params)
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
	violations, _ := s.EndCall(before)
	s.Mu.Lock()
	late := s.LateAnswers - lateBefore
	s.Mu.Unlock()
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
	hit  atomic.Bool // set on a stall
}

func newStallWatch(parent context.Context, limit time.Duration) *stallWatch {
	w := &stallWatch{limit: limit, last: time.Now(), done: make(chan struct{})}
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
			w.hit.Store(true)
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
func (w *stallWatch) stalled() bool { return w.hit.Load() }

// stop ends the watch once every request returned.
func (w *stallWatch) stop() {
	close(w.done)
	w.cancel()
}

// judgeSameSession decides the same-session check from the answers of
// reqs, the violations on the wire and the late (duplicated) answers, and
// reports whether the session is still usable.
func (cr *checker) judgeSameSession(ctx context.Context, s *session.Session, reqs []inFlight, violations []string, late int, c *report.Check) bool {
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
		if st := s.WaitExit(2 * time.Second); st != "" {
			how, what = report.CrashExit, "the server exited ("+st+")"
		}
		c.Status, c.Code, c.Crash = report.CheckFail, string(report.Crash), &report.CrashInfo{How: how}
		c.Detail = fmt.Sprintf("%s with %d of %d requests in flight together unanswered", what, closed, len(reqs))
		if s.Proc != nil {
			c.Crash.ExitStatus = s.Proc.ExitStatus()
			c.Crash.Stderr = cr.o.StderrTail(s.Proc.Stderr())
		}
		return false
	case len(violations) > 0 || late > 0 || len(mixed) > 0:
		var parts []string
		parts = append(parts, violations...)
		if late > 0 {
			parts = append(parts, words.Plural(late, "answer came", "answers came")+" to an id already answered (a duplicated id)")
		}
		if len(mixed) > maxDetail {
			mixed = append(mixed[:maxDetail], fmt.Sprintf("and %d more", len(mixed)-maxDetail))
		}
		parts = append(parts, mixed...)
		c.Status, c.Code = report.CheckFail, string(report.ProtocolViolation)
		c.Detail = fmt.Sprintf("with %d requests in flight together, answers did not reach their own requests: %s", len(reqs), strings.Join(parts, "; "))
		return hung == 0 && !s.Client.Ended()
	case hung > 0:
		c.Status, c.Code = report.CheckFail, string(report.Hang)
		c.Detail = fmt.Sprintf("%d of %d requests in flight together got no answer: none came for --timeout %s", hung, len(reqs), cr.o.Timeout)
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
		return "a result that is not an object: " + textcut.Excerpt(string(raw), 80)
	}
	_, tools := m["tools"]
	_, content := m["content"]
	switch {
	case method == "tools/list" && !tools:
		return "a result without tools, not a tools/list result: " + textcut.Excerpt(string(raw), 80)
	case method != "tools/list" && tools:
		return "a tools/list result: " + textcut.Excerpt(string(raw), 80)
	case method == "ping" && content:
		return "a tools/call result: " + textcut.Excerpt(string(raw), 80)
	}
	return ""
}

// cancelCheck sends method on s and gives up on it as soon as it is
// written (notifications/cancelled), then sends tools/list: the session
// must answer it.
func (cr *checker) cancelCheck(ctx context.Context, s *session.Session, method string, params json.RawMessage, c *report.Check) {
	cctx, cancel := context.WithCancel(ctx)
	_, _, err := s.Call(rpc.WithSent(cctx, cancel), method, params)
	cancel()
	how := "cancelled while in flight"
	if !errors.Is(err, context.Canceled) || ctx.Err() != nil {
		how = "answered before the cancellation could be sent; notifications/cancelled was not needed"
	}
	if ctx.Err() != nil {
		c.Status, c.Detail = report.CheckSkip, "not judged: the run was interrupted, or the concurrency checks' time budget ran out"
		return
	}
	before, _ := s.BeginCall()
	raw, _, ms, err := s.TimedCall(ctx, cr.o.Timeout, func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.Call(cctx, "tools/list", json.RawMessage(`{}`))
	})
	c.DurationMs = ms
	o := s.OutcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.WaitExit(2 * time.Second)
	}
	o.Violations, _ = s.EndCall(before)
	// Any answer will do, a JSON-RPC error included: the session lives.
	protocheck.Judge(protocheck.Expectation{ServedOK: func(json.RawMessage) bool { return true }}, o, protocheck.HTTPAnswer{}, c)
	if c.Status == report.CheckPass {
		c.Detail = fmt.Sprintf("the %s request was %s; the next request was answered", method, how)
	} else {
		c.Detail = fmt.Sprintf("the %s request was %s; then the next request: %s", method, how, c.Detail)
		if c.Crash != nil && s.Proc != nil {
			c.Crash.ExitStatus = s.Proc.ExitStatus()
			c.Crash.Stderr = cr.o.StderrTail(s.Proc.Stderr())
		}
	}
}
