package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Protocol eras (docs/BEHAVIOUR.md#targets-and-transports): the
// 2026-07-28 revision is stateless (a client discovers the server with
// server/discover and every request carries the _meta envelope); the 2025
// revisions use the initialize handshake. EraAuto tries the first and
// falls back to the second.
const (
	EraAuto   = "auto"
	EraModern = report.EraModern
	EraLegacy = report.EraLegacy
)

// ModernProtocolVersion is the protocol version offered in server/discover
// unless the options say otherwise.
const ModernProtocolVersion = "2026-07-28"

// ModernVersions are the stateless revisions whose envelope mcp-fuzz
// speaks, newest first: a -32022 retry picks the first the server supports.
var ModernVersions = []string{ModernProtocolVersion}

// The bounds of a modern exchange.
const (
	// maxInputRounds is how many times an input_required answer is
	// answered and the request retried before the last answer is judged.
	maxInputRounds = 3
	// discoverTimeout bounds the server/discover probe: a legacy server
	// that ignores unknown methods must not cost the whole startup budget.
	discoverTimeout = 10 * time.Second
)

var versionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// ValidProtocolVersion reports whether v is a protocol revision as the
// spec spells them (YYYY-MM-DD).
func ValidProtocolVersion(v string) bool { return versionPattern.MatchString(v) }

// discoverResult is what mcp-fuzz keeps of a server/discover answer.
type discoverResult struct {
	supported []string
}

// errNoModern marks a server that does not speak the stateless era: its
// answer to server/discover is why (auto falls back to initialize). An
// answer over the response cap says nothing of the era, but a client that
// only probed has no reason to give up on it either: it is one too, with
// overCap set.
type errNoModern struct {
	why     string
	overCap bool
}

func (e *errNoModern) Error() string { return e.why }

// Envelope is the _meta of every modern request, built once per offered
// version (negotiation may change it) rather than once per request.
func (s *Session) Envelope() json.RawMessage {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.meta == nil || s.metaVersion != s.Init.ProtocolVersion {
		s.meta, s.metaVersion = stateless.Envelope(s.Init.ProtocolVersion, "mcp-fuzz", s.version), s.Init.ProtocolVersion
	}
	return s.meta
}

// discoverParams are server/discover's params: the envelope alone.
func (s *Session) discoverParams() json.RawMessage {
	return json.RawMessage(`{"_meta":` + string(s.Envelope()) + `}`)
}

// probeTimeout is how long the discover probe may wait: [discoverTimeout],
// but at most half of what is left of the startup timeout, so that a legacy
// server that ignores unknown methods still gets its initialize.
func probeTimeout(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if half := time.Until(dl) / 2; half < discoverTimeout {
			return max(half, time.Millisecond)
		}
	}
	return discoverTimeout
}

// discover probes the server with server/discover offering version. A
// server that answers -32022 with the versions it supports is asked once
// more with the newest modern one both support. Any other refusal is an
// [errNoModern], an answer over the response cap included; a transport
// failure (the server died) is returned as it is.
func (s *Session) discover(ctx context.Context, version string) (discoverResult, error) {
	for attempt := 0; ; attempt++ {
		s.Init.ProtocolVersion = version
		limit := probeTimeout(ctx)
		dctx, cancel := context.WithTimeout(ctx, limit)
		raw, _, err := s.CallOnce(dctx, "server/discover", s.discoverParams())
		cancel()
		// Over stdio, the bytes of an answer line that had not ended.
		pending := s.PendingLine()
		var rpcErr *rpc.Error
		var over *rpc.Oversize
		switch {
		case errors.As(err, &over) && (over.Ended || ctx.Err() == nil):
			return discoverResult{}, s.unread(over.Bytes, over.Ended, limit)
		case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && pending > 0:
			return discoverResult{}, s.unread(pending, false, limit)
		case errors.As(err, &rpcErr):
			if rpcErr.Code == oracle.CodeUnsupportedProtocolVersion && attempt == 0 {
				if v := pickModern(stateless.SupportedFromData(rpcErr.Data)); v != "" && v != version {
					version = v
					continue
				}
			}
			return discoverResult{}, &errNoModern{why: fmt.Sprintf("server/discover was answered with JSON-RPC error %d: %s", rpcErr.Code, textcut.Excerpt(rpcErr.Message, 200))}
		case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			return discoverResult{}, &errNoModern{why: fmt.Sprintf("server/discover got no answer within %s", limit)}
		case err != nil:
			return discoverResult{}, err
		}
		d, err := s.parseDiscover(raw)
		if err != nil {
			answer, _ := s.excerptFound(string(raw), 200)
			return discoverResult{}, &errNoModern{why: fmt.Sprintf("the server's answer to server/discover is malformed: %v (answer: %s)", err, answer)}
		}
		if !slices.Contains(d.supported, version) {
			v := pickModern(d.supported)
			if v == "" {
				return discoverResult{}, &errNoModern{why: fmt.Sprintf("server/discover lists no stateless protocol version mcp-fuzz speaks (supportedVersions: %s)", textcut.Excerpt(strings.Join(d.supported, ", "), 200))}
			}
			version = v
		}
		s.Init.ProtocolVersion = version
		return d, nil
	}
}

// unread is the [errNoModern] of an answer to server/discover that was not
// read: n bytes, the whole answer when ended, else what had come of it
// within limit.
func (s *Session) unread(n int64, ended bool, limit time.Duration) *errNoModern {
	overCap := n > int64(s.maxResponse)
	if ended {
		return &errNoModern{why: fmt.Sprintf("the server's answer to server/discover was %d bytes, over --max-response %d", n, s.maxResponse), overCap: overCap}
	}
	why := fmt.Sprintf("the server's answer to server/discover was still unfinished after %d bytes within %s", n, limit.Round(time.Millisecond))
	if overCap {
		why += fmt.Sprintf(", over --max-response %d", s.maxResponse)
	}
	return &errNoModern{why: why, overCap: overCap}
}

// pickModern is the newest stateless version mcp-fuzz speaks among
// supported, "" when none.
func pickModern(supported []string) string {
	for _, v := range ModernVersions {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

// parseDiscover reads a DiscoverResult into s.init (capabilities,
// instructions, server info from _meta) and returns its supported versions.
func (s *Session) parseDiscover(raw json.RawMessage) (discoverResult, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return discoverResult{}, errors.New("the result is not a JSON object")
	}
	var list []json.RawMessage
	if json.Unmarshal(fields["supportedVersions"], &list) != nil || list == nil {
		return discoverResult{}, errors.New("supportedVersions is not an array")
	}
	d := discoverResult{supported: stateless.BoundedVersions(list)}
	if c, ok := fields["capabilities"]; ok && string(c) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(c, &m) != nil || m == nil {
			return discoverResult{}, errors.New("capabilities is not an object")
		}
		s.Init.Capabilities = c
	}
	if in, ok := fields["instructions"]; ok && string(in) != "null" {
		if json.Unmarshal(in, &s.Init.Instructions) != nil {
			return discoverResult{}, errors.New("instructions is not a string")
		}
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(fields["_meta"], &meta) == nil {
		var info struct {
			Name    any `json:"name"`
			Version any `json:"version"`
		}
		if json.Unmarshal(meta[stateless.MetaServerInfo], &info) == nil {
			s.Init.ServerInfo.Name, _ = info.Name.(string)
			s.Init.ServerInfo.Version, _ = info.Version.(string)
		}
	}
	return d, nil
}

// modernCall sends one modern request: the envelope in params._meta, and
// an input_required answer answered and retried with its requestState (at
// most [maxInputRounds] times) before the last answer is returned. A
// malformed input_required answer is a protocol violation of the server's.
func (s *Session) modernCall(ctx context.Context, method string, params any) (json.RawMessage, []string, error) {
	p, err := stateless.WithMembers(params, "_meta", s.Envelope())
	if err != nil {
		return s.CallOnce(ctx, method, params)
	}
	// The server's own requestState goes back to it as it was sent:
	// redacted, a state that carries a secret would break every retry.
	// Only the redacted answer leaves this function.
	raw, found, wire, err := s.callOnceRaw(ctx, method, p)
	s.observeAnswer(method, err)
	for round := 0; err == nil && round < maxInputRounds; round++ {
		fields := stateless.ResultMembers(wire)
		s.observed.sawResult(method, fields)
		done, requests, state, ierr := stateless.InputRequiredOf(fields)
		if ierr != nil {
			s.violate(fmt.Sprintf("malformed %s result: %v", method, ierr))
			return raw, found, nil
		}
		if done {
			return raw, found, nil
		}
		s.observed.sawInputRequests(method, requests)
		inputs := stateless.InputResponses(requests)
		members := []any{"_meta", s.Envelope()}
		if len(requests) > 0 {
			members = append(members, "inputResponses", inputs)
		}
		if state != nil {
			members = append(members, "requestState", *state)
			s.observed.sawInputRequired(method, p, *state, inputs)
		}
		retry, merr := stateless.WithMembers(params, members...)
		if merr != nil {
			return raw, found, nil
		}
		var more []string
		raw, more, wire, err = s.callOnceRaw(ctx, method, retry)
		s.observeAnswer(method, err)
		found = append(found, more...)
	}
	return raw, found, err
}

// observeAnswer records the error code of a modern request's answer for
// the compliance checks.
func (s *Session) observeAnswer(method string, err error) {
	var rpcErr *rpc.Error
	if errors.As(err, &rpcErr) {
		s.observed.sawError(method, rpcErr.Code)
	}
}

// Liveness sends the cheapest request the session's era has: ping in the
// legacy era; server/discover in the modern one, which has no ping (a
// modern server answers it -32601, an answer all the same, but an honest
// client does not send a removed method).
func (s *Session) Liveness(ctx context.Context) (json.RawMessage, []string, error) {
	if s.Era == EraModern {
		return s.CallOnce(ctx, "server/discover", s.discoverParams())
	}
	return s.CallOnce(ctx, "ping", nil)
}
