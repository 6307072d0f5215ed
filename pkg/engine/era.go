package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// Protocol eras (docs/BEHAVIOUR.md#targets-and-transports): the 2026-07-28 revision is stateless (a client
// discovers the server with server/discover and every request carries the
// _meta envelope); the 2025 revisions use the initialize handshake.
const (
	EraAuto   = "auto"
	EraModern = "modern"
	EraLegacy = "legacy"
	// EraBoth audits the server in the modern era, then in the legacy
	// one, and reports the verdicts that differ (see [runBoth]).
	EraBoth = "both"
)

// ModernProtocolVersion is the protocol version mcp-fuzz offers in
// server/discover unless --protocol-version says otherwise.
const ModernProtocolVersion = "2026-07-28"

// modernVersions are the stateless revisions whose envelope mcp-fuzz
// speaks, newest first: a -32022 retry picks the first the server supports.
var modernVersions = []string{ModernProtocolVersion}

// The _meta keys of the stateless envelope (SEP-2575).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Bounds on what a hostile server's discover and multi-round-trip answers
// may make mcp-fuzz keep or send back.
const (
	maxSupportedVersions = 32
	maxVersionLen        = 64
	maxInputRequests     = 16
	maxRequestState      = 64 << 10
	// maxInputRounds is how many times an input_required answer is
	// answered and the request retried before the last answer is judged.
	maxInputRounds = 3
	// discoverTimeout bounds the server/discover probe: a legacy server
	// that ignores unknown methods must not cost the whole startup budget.
	discoverTimeout = 10 * time.Second
)

var versionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// validProtocolVersion reports whether v is a protocol revision as the
// spec spells them (YYYY-MM-DD).
func validProtocolVersion(v string) bool { return versionPattern.MatchString(v) }

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

// envelope is the _meta of every modern request, built once per offered
// version (negotiation may change it) rather than once per request.
func (s *session) envelope() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta == nil || s.metaVersion != s.init.ProtocolVersion {
		s.meta, s.metaVersion = envelopeJSON(s.init.ProtocolVersion, "mcp-fuzz", s.version), s.init.ProtocolVersion
	}
	return s.meta
}

// envelopeJSON is a _meta envelope offering version, from the client
// name/ver: mcp-fuzz's own requests and its reproducers build it here.
func envelopeJSON(version, name, ver string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		metaProtocolVersion: version,
		// Elicitation only: it is answered (declined), and sampling and
		// roots are deprecated in the stateless era.
		metaClientCapabilities: map[string]any{"elicitation": map[string]any{}},
		metaClientInfo:         map[string]any{"name": name, "version": ver},
	})
	return b
}

// discoverParams are server/discover's params: the envelope alone.
func (s *session) discoverParams() json.RawMessage {
	return json.RawMessage(`{"_meta":` + string(s.envelope()) + `}`)
}

// withMembers returns params (a JSON object, or nil for none) with the
// given members added in front; the params' own bytes are kept as they
// are, so that a case's arguments reach the server exactly as generated.
func withMembers(params any, members ...any) (json.RawMessage, error) {
	var raw []byte
	switch p := params.(type) {
	case nil:
		raw = []byte("{}")
	case json.RawMessage:
		raw = p
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return nil, fmt.Errorf("params are not a JSON object")
	}
	var head bytes.Buffer
	head.WriteByte('{')
	for i := 0; i+1 < len(members); i += 2 {
		k, _ := json.Marshal(members[i])
		var v []byte
		if r, ok := members[i+1].(json.RawMessage); ok {
			v = r
		} else {
			var err error
			if v, err = json.Marshal(members[i+1]); err != nil {
				return nil, err
			}
		}
		if i > 0 {
			head.WriteByte(',')
		}
		head.Write(k)
		head.WriteByte(':')
		head.Write(v)
	}
	rest := bytes.TrimSpace(raw[1:])
	if len(rest) > 0 && rest[0] != '}' {
		head.WriteByte(',')
	}
	head.Write(rest)
	return head.Bytes(), nil
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
func (s *session) discover(ctx context.Context, version string) (discoverResult, error) {
	for attempt := 0; ; attempt++ {
		s.init.ProtocolVersion = version
		limit := probeTimeout(ctx)
		dctx, cancel := context.WithTimeout(ctx, limit)
		raw, _, err := s.callOnce(dctx, "server/discover", s.discoverParams())
		cancel()
		// Over stdio, the bytes of an answer line that had not ended.
		pending := s.pendingLine()
		var rpcErr *rpc.Error
		var over *rpc.Oversize
		switch {
		case errors.As(err, &over) && (over.Ended || ctx.Err() == nil):
			return discoverResult{}, s.unread(over.Bytes, over.Ended, limit)
		case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && pending > 0:
			return discoverResult{}, s.unread(pending, false, limit)
		case errors.As(err, &rpcErr):
			if rpcErr.Code == oracle.CodeUnsupportedProtocolVersion && attempt == 0 {
				if v := pickModern(supportedFromData(rpcErr.Data)); v != "" && v != version {
					version = v
					continue
				}
			}
			return discoverResult{}, &errNoModern{why: fmt.Sprintf("server/discover was answered with JSON-RPC error %d: %s", rpcErr.Code, excerpt(rpcErr.Message, 200))}
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
				return discoverResult{}, &errNoModern{why: fmt.Sprintf("server/discover lists no stateless protocol version mcp-fuzz speaks (supportedVersions: %s)", excerpt(strings.Join(d.supported, ", "), 200))}
			}
			version = v
		}
		s.init.ProtocolVersion = version
		return d, nil
	}
}

// unread is the [errNoModern] of an answer to server/discover that was not
// read: n bytes, the whole answer when ended, else what had come of it
// within limit.
func (s *session) unread(n int64, ended bool, limit time.Duration) *errNoModern {
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

// supportedFromData reads data.supported of a -32022 error, bounded.
func supportedFromData(data json.RawMessage) []string {
	var d struct {
		Supported []json.RawMessage `json:"supported"`
	}
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	return boundedVersions(d.Supported)
}

// boundedVersions keeps the first [maxSupportedVersions] string entries of
// a version list, each cut to [maxVersionLen] bytes.
func boundedVersions(raws []json.RawMessage) []string {
	var out []string
	for _, r := range raws {
		if len(out) == maxSupportedVersions {
			break
		}
		var v string
		if json.Unmarshal(r, &v) != nil {
			continue
		}
		out = append(out, cutUTF8(v, maxVersionLen))
	}
	return out
}

// pickModern is the newest stateless version mcp-fuzz speaks among
// supported, "" when none.
func pickModern(supported []string) string {
	for _, v := range modernVersions {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

// parseDiscover reads a DiscoverResult into s.init (capabilities,
// instructions, server info from _meta) and returns its supported versions.
func (s *session) parseDiscover(raw json.RawMessage) (discoverResult, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return discoverResult{}, errors.New("the result is not a JSON object")
	}
	var list []json.RawMessage
	if json.Unmarshal(fields["supportedVersions"], &list) != nil || list == nil {
		return discoverResult{}, errors.New("supportedVersions is not an array")
	}
	d := discoverResult{supported: boundedVersions(list)}
	if c, ok := fields["capabilities"]; ok && string(c) != "null" {
		var m map[string]json.RawMessage
		if json.Unmarshal(c, &m) != nil || m == nil {
			return discoverResult{}, errors.New("capabilities is not an object")
		}
		s.init.Capabilities = c
	}
	if in, ok := fields["instructions"]; ok && string(in) != "null" {
		if json.Unmarshal(in, &s.init.Instructions) != nil {
			return discoverResult{}, errors.New("instructions is not a string")
		}
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(fields["_meta"], &meta) == nil {
		var info struct {
			Name    any `json:"name"`
			Version any `json:"version"`
		}
		if json.Unmarshal(meta[metaServerInfo], &info) == nil {
			s.init.ServerInfo.Name, _ = info.Name.(string)
			s.init.ServerInfo.Version, _ = info.Version.(string)
		}
	}
	return d, nil
}

// inputRequired reads a result's resultType: done is true for a complete
// answer (resultType "complete" or absent); otherwise requests are the
// inputRequests to answer and state the requestState to send back. A
// malformed input_required answer is an error describing why.
func inputRequired(raw json.RawMessage) (done bool, requests map[string]json.RawMessage, state *string, err error) {
	return inputRequiredOf(resultMembers(raw))
}

// resultMembers are the members of a result object, nil when it is not
// one.
func resultMembers(raw json.RawMessage) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	return fields
}

// inputRequiredOf is [inputRequired] of a result's members.
func inputRequiredOf(fields map[string]json.RawMessage) (done bool, requests map[string]json.RawMessage, state *string, err error) {
	if fields == nil {
		return true, nil, nil, nil
	}
	rt, ok := fields["resultType"]
	if !ok || string(rt) == "null" {
		return true, nil, nil, nil
	}
	var t string
	if json.Unmarshal(rt, &t) != nil {
		return true, nil, nil, fmt.Errorf("resultType is not a string: %s", excerpt(string(rt), 60))
	}
	switch t {
	case "complete":
		return true, nil, nil, nil
	case "input_required":
	default:
		return true, nil, nil, fmt.Errorf("unknown resultType %q", excerpt(t, 60))
	}
	if ir, ok := fields["inputRequests"]; ok && string(ir) != "null" {
		if json.Unmarshal(ir, &requests) != nil || requests == nil {
			return false, nil, nil, errors.New("inputRequests is not an object of requests")
		}
	}
	if len(requests) > maxInputRequests {
		return false, nil, nil, fmt.Errorf("an input_required result with %d inputRequests (more than %d)", len(requests), maxInputRequests)
	}
	if rs, ok := fields["requestState"]; ok && string(rs) != "null" {
		var v string
		if json.Unmarshal(rs, &v) != nil {
			return false, nil, nil, errors.New("requestState is not a string")
		}
		if len(v) > maxRequestState {
			return false, nil, nil, fmt.Errorf("requestState of %d bytes (more than %d)", len(v), maxRequestState)
		}
		state = &v
	}
	if len(requests) == 0 && state == nil {
		// The revision asks for at least one of them: with neither, a
		// retry could only get the same answer.
		return false, nil, nil, errors.New("an input_required result with neither inputRequests nor requestState")
	}
	// In key order: the first request without a method is the one named,
	// the same in every run.
	for _, k := range slices.Sorted(maps.Keys(requests)) {
		r := requests[k]
		var req struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(r, &req) != nil || req.Method == "" {
			return false, nil, nil, fmt.Errorf("inputRequests[%q] has no method", excerpt(k, 60))
		}
	}
	return false, requests, state, nil
}

// inputResponses answers input requests as an unattended client does:
// elicitations are declined; sampling and roots (deprecated in 2026-07-28)
// and anything else are refused by leaving them unanswered.
func inputResponses(requests map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, r := range requests {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(r, &req)
		if req.Method == "elicitation/create" {
			out[k] = map[string]any{"action": "decline"}
		}
	}
	return out
}

// modernCall sends one modern request: the envelope in params._meta, and
// an input_required answer answered and retried with its requestState (at
// most [maxInputRounds] times) before the last answer is returned. A
// malformed input_required answer is a protocol violation of the server's.
func (s *session) modernCall(ctx context.Context, method string, params any) (json.RawMessage, []string, error) {
	p, err := withMembers(params, "_meta", s.envelope())
	if err != nil {
		return s.callOnce(ctx, method, params)
	}
	// The server's own requestState goes back to it as it was sent:
	// redacted, a state that carries a secret would break every retry.
	// Only the redacted answer leaves this function.
	raw, found, wire, err := s.callOnceRaw(ctx, method, p)
	s.observeAnswer(method, err)
	for round := 0; err == nil && round < maxInputRounds; round++ {
		fields := resultMembers(wire)
		s.observed.sawResult(method, fields)
		done, requests, state, ierr := inputRequiredOf(fields)
		if ierr != nil {
			s.violate(fmt.Sprintf("malformed %s result: %v", method, ierr))
			return raw, found, nil
		}
		if done {
			return raw, found, nil
		}
		s.observed.sawInputRequests(method, requests)
		inputs := inputResponses(requests)
		members := []any{"_meta", s.envelope()}
		if len(requests) > 0 {
			members = append(members, "inputResponses", inputs)
		}
		if state != nil {
			members = append(members, "requestState", *state)
			s.observed.sawInputRequired(method, p, *state, inputs)
		}
		retry, merr := withMembers(params, members...)
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
func (s *session) observeAnswer(method string, err error) {
	var rpcErr *rpc.Error
	if errors.As(err, &rpcErr) {
		s.observed.sawError(method, rpcErr.Code)
	}
}

// liveness sends the cheapest request the session's era has: ping in the
// legacy era; server/discover in the modern one, which has no ping (a
// modern server answers it -32601, an answer all the same, but an honest
// client does not send a removed method).
func (s *session) liveness(ctx context.Context) (json.RawMessage, []string, error) {
	if s.era == EraModern {
		return s.callOnce(ctx, "server/discover", s.discoverParams())
	}
	return s.callOnce(ctx, "ping", nil)
}
