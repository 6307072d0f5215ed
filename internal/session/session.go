package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcap"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Session is one live connection to the server: a process (stdio) or an HTTP
// session, plus what went wrong on its wire.
type Session struct {
	Client *rpc.Client
	Proc   *stdio.Process // nil over HTTP
	Init   initializeResult
	// started is set once the handshake succeeded: until then the
	// server's stray stdout lines are kept for the connect error.
	started atomic.Bool
	// Era is EraModern (stateless: every request carries the _meta
	// envelope) or EraLegacy (the initialize handshake).
	Era string
	// meta is the _meta envelope of modern requests for metaVersion (see
	// [Session.Envelope]); guarded by Mu.
	meta        json.RawMessage
	metaVersion string
	// Supported are the versions server/discover listed (modern era).
	Supported []string
	// EraReason is why the legacy era is spoken although server/discover
	// was tried first (see [report.Server.EraReason]); already redacted.
	EraReason   string
	maxResponse int            // the response cap, for messages
	version     string         // mcp-fuzz's own version, for clientInfo
	leak        *leak.Detector // redacts the secrets from everything the server sends

	// stray collects the violations of this session that happened while
	// no tools/call was in flight (shared by the dialer's sessions).
	stray *StrayLog
	// observed is the dialer's record of the audit's modern answers.
	observed *Observed
	// Listed keeps the first prompts and resource templates discovery
	// listed, for the resources and prompts checks.
	Listed ListedItems
	// Params are the dialer's x-mcp-header bindings.
	Params *ParamTable

	// Mu guards the fields below it, and LateAnswers for a reader while
	// the session is in use.
	Mu sync.Mutex
	// phase says when a violation happens while no tools/call is in
	// flight ([PhaseBeforeInit], ...); "" while one is: then the
	// violation belongs to the call's case.
	phase           string
	violationCount  int
	violationWindow int             // violationCount when the current call began
	kept            []keptViolation // the first few of the current window
	cutScheduled    bool            // the current call will be cut short
	LateAnswers     int
	// violationSecrets names the secrets in this call's violations: they
	// are redacted from the excerpts, and each is a leak of the case.
	violationSecrets []string
	stderrPanics     int
	cancel           context.CancelFunc // ends an HTTP connection's context
	// cancelCall, while a call is in flight, cuts it short: a violation
	// usually means its real answer will never come.
	cancelCall context.CancelFunc
}

type initializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Instructions string `json:"instructions"`
}

// violationGrace is how long a call may still be answered properly after the
// server put garbage on the wire (a log line before a good answer is common).
const violationGrace = 250 * time.Millisecond

func (s *Session) violate(desc string) {
	kept, found := s.excerptFound(desc, maxViolationText)
	s.record(kept, found)
}

// record keeps desc, already redacted, as a violation of the tools/call in
// flight (the first few of a call; the rest are counted), notes the
// secrets its raw text carried (found), and cuts the call short. While no
// tools/call is in flight it goes to the server's stray violations
// instead, with when it happened.
func (s *Session) record(desc string, found []string) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.phase == phaseClosing {
		return
	}
	if s.phase != "" {
		if s.stray != nil {
			s.stray.add(s.phase, desc)
		}
		return
	}
	for _, name := range found {
		if !slices.Contains(s.violationSecrets, name) {
			s.violationSecrets = append(s.violationSecrets, name)
		}
	}
	if s.violationCount-s.violationWindow < maxKeptViolations {
		s.kept = append(s.kept, keptViolation{s.violationCount, desc})
	}
	s.violationCount++
	if s.cancelCall != nil && !s.cutScheduled {
		s.cutScheduled = true
		time.AfterFunc(violationGrace, s.cancelCall)
	}
}

// noteLate counts an answer to a request that was already answered or
// abandoned: a defect of the server, but not of the call in flight.
func (s *Session) noteLate() {
	s.Mu.Lock()
	s.LateAnswers++
	s.Mu.Unlock()
}

// Bounds on what a session keeps of a flood of violations: the first
// maxKeptViolations of each call are described, the rest only counted.
const (
	maxKeptViolations = 8
	maxViolationText  = 300
)

type keptViolation struct {
	index int
	desc  string
}

// excerptFound makes server text safe to keep: JSON escapes decoded (so that a
// secret written as \u0073\u006b… is seen), every secret redacted, then cut
// to n runes (after redaction, so a secret is hidden whole or not cut). It
// also names the secrets the text carried.
func (s *Session) excerptFound(text string, n int) (string, []string) {
	redacted, found := s.leak.RedactText(leak.UnescapeJSON(text))
	return textcut.Excerpt(redacted, n), found
}

// InCall registers cancel as the way to cut the current call short (nil when
// the call is over).
func (s *Session) InCall(cancel context.CancelFunc) {
	s.Mu.Lock()
	s.cancelCall = cancel
	s.cutScheduled = false
	s.Mu.Unlock()
}

// SetPhase says when the violations from now on happen, while no
// tools/call is in flight: see [Session.phase].
func (s *Session) SetPhase(phase string) {
	s.Mu.Lock()
	s.phase = phase
	s.Mu.Unlock()
}

// BeginCall starts a tools/call: the violations from now on are its case's
// (see [Session.EndCall]). It returns [Session.Marks].
func (s *Session) BeginCall() (violations, panics int) {
	violations, panics = s.Marks()
	s.SetPhase("")
	return violations, panics
}

// EndCall ends the tools/call begun when n violations had been seen, and
// returns its violations (see [Session.violationsSinceLocked]) and the secrets
// they carried. Atomically: a violation is either the call's or, after
// this, the server's stray one "between calls", never both or neither.
func (s *Session) EndCall(n int) (violations, secrets []string) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.phase = PhaseBetweenCalls
	return s.violationsSinceLocked(n), slices.Clone(s.violationSecrets)
}

// Marks starts a new call's window of violations and returns how many
// violations and stderr panics were seen so far.
func (s *Session) Marks() (violations, panics int) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.violationWindow = s.violationCount
	s.violationSecrets = nil
	kept := s.kept[:0]
	for _, k := range s.kept {
		if k.index >= s.violationWindow {
			kept = append(kept, k)
		}
	}
	s.kept = kept
	return s.violationCount, s.stderrPanics
}

// violationsSinceLocked describes the violations recorded after the first
// n: the first few in full, then how many more there were. s.mu is held.
func (s *Session) violationsSinceLocked(n int) []string {
	var out []string
	for _, k := range s.kept {
		if k.index >= n {
			out = append(out, k.desc)
		}
	}
	if more := s.violationCount - n - len(out); more > 0 {
		out = append(out, fmt.Sprintf("and %d more", more))
	}
	return out
}

func (s *Session) noteStderr(line string) {
	if !oracle.IsPanicLine(line) {
		return
	}
	s.Mu.Lock()
	s.stderrPanics++
	s.Mu.Unlock()
}

// PendingLine is how many bytes of an unfinished stdout line the server has
// written (0 over HTTP or between lines).
func (s *Session) PendingLine() int64 {
	if s.Proc == nil {
		return 0
	}
	return s.Proc.PendingLine()
}

// Close ends the session and, for stdio, the whole process group. What
// the server's stream still yields is not judged: cut off by the close (the
// rest of an answer that never ended, whose case said so), it is no
// violation of the server's.
func (s *Session) Close() {
	s.SetPhase(phaseClosing)
	if s.Client != nil {
		_ = s.Client.Close()
	}
	if s.Proc != nil {
		_ = s.Proc.Stop()
	}
	if s.cancel != nil {
		s.cancel()
	}
}

// Call sends one request and returns its answer with every secret redacted
// (an error answer's message and data too), and the names of the secrets the
// answer carried. Nothing the server sends reaches the report unredacted:
// every request goes through here.
func (s *Session) Call(ctx context.Context, method string, params any) (json.RawMessage, []string, error) {
	if s.Era == EraModern {
		return s.modernCall(ctx, method, params)
	}
	return s.CallOnce(ctx, method, params)
}

// CallOnce is [Session.Call] without the modern era's envelope and
// multi-round-trip handling: one request, one answer, redacted.
func (s *Session) CallOnce(ctx context.Context, method string, params any) (json.RawMessage, []string, error) {
	raw, found, _, err := s.callOnceRaw(ctx, method, params)
	return raw, found, err
}

// callOnceRaw is [Session.CallOnce] that also returns a successful
// answer's result as the server sent it, unredacted: for what mcp-fuzz
// sends back to the server itself (a requestState), never for a report.
func (s *Session) callOnceRaw(ctx context.Context, method string, params any) (redacted json.RawMessage, found []string, raw json.RawMessage, err error) {
	if method == "tools/call" && s.Era == EraModern && s.Proc == nil {
		// Over Streamable HTTP (the legacy SSE transport is never modern).
		ctx = s.Params.withParamHeaders(ctx, params)
	}
	wctx, watch := httpcap.WithWatch(ctx)
	raw, err = s.Client.Call(wctx, method, params)
	var rpcErr *rpc.Error
	var over *rpc.Oversize
	if cc, ok := s.Client.Conn().(*httpcap.Conn); ok && ctx.Err() != nil && errors.Is(err, ctx.Err()) && watch.ID().IsValid() {
		// Timed out while an oversize answer was still coming over HTTP.
		if o := cc.Store().Unfinished(watch.ID()); o != nil {
			err = o
		}
	}
	switch {
	case errors.As(err, &over):
		o := *over
		head, found := s.excerptFound(o.Head, oversizeHead)
		o.Head = head
		return nil, found, nil, &o
	case err == nil:
		redacted, found := s.leak.RedactJSON(raw)
		return redacted, found, raw, nil
	case errors.As(err, &rpcErr):
		msg, found := s.leak.RedactText(rpcErr.Message)
		data, inData := s.leak.RedactJSON(rpcErr.Data)
		return nil, append(found, inData...), nil, &rpc.Error{Code: rpcErr.Code, Message: msg, Data: data}
	}
	return nil, nil, nil, err
}

// maxListed bounds the prompts and resource templates kept from discovery.
const maxListed = 16

// ListedItems are the first prompts and resource templates discovery
// listed, as the server sent them (already redacted by the session).
type ListedItems struct {
	Prompts, Templates []json.RawMessage
}

// keep records the first items of a prompts/list or
// resources/templates/list.
func (l *ListedItems) keep(method string, items []json.RawMessage) {
	switch method {
	case "prompts/list":
		l.Prompts = items[:min(len(items), maxListed)]
	case "resources/templates/list":
		l.Templates = items[:min(len(items), maxListed)]
	}
}

// CloseAll closes sessions together, every close under way before any has
// finished (a server that ignores SIGTERM costs a kill grace to stop), and
// returns the late answers they got in all.
func CloseAll(sessions []*Session) (lateAnswers int) {
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Close()
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		s.Mu.Lock()
		lateAnswers += s.LateAnswers
		s.Mu.Unlock()
	}
	return lateAnswers
}

// Server describes the server as s negotiated it, for a report: its name
// and version, protocol version and era, capabilities, and its
// instructions through redact.
func (s *Session) Server(redact func(string) string) report.Server {
	return report.Server{
		Name:              s.Init.ServerInfo.Name,
		Version:           s.Init.ServerInfo.Version,
		ProtocolVersion:   s.Init.ProtocolVersion,
		Era:               s.Era,
		EraReason:         s.EraReason,
		SupportedVersions: s.Supported,
		Capabilities:      s.Init.Capabilities,
		Instructions:      redact(s.Init.Instructions),
	}
}

// oversizeHead is how many runes of an oversize answer's start a case keeps.
const oversizeHead = 200
