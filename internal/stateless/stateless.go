// Package stateless is the wire format of the stateless era (the
// 2026-07-28 revision, docs/BEHAVIOUR.md#targets-and-transports): the _meta
// envelope every request carries, a result's input_required round trip,
// and the version lists a refusal or server/discover names, each bounded
// against a hostile server. It builds and reads messages; it sends none.
package stateless

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

// The _meta keys of the stateless envelope (SEP-2575).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Bounds on what a hostile server's discover and multi-round-trip answers
// may make mcp-fuzz keep or send back.
const (
	MaxSupportedVersions = 32
	MaxVersionLen        = 64
	MaxInputRequests     = 16
	MaxRequestState      = 64 << 10
)

// Envelope is a _meta envelope offering version, from the client
// name/ver: mcp-fuzz's own requests and its reproducers build it here.
func Envelope(version, name, ver string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		MetaProtocolVersion: version,
		// Elicitation only: it is answered (declined), and sampling and
		// roots are deprecated in the stateless era.
		MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}},
		MetaClientInfo:         map[string]any{"name": name, "version": ver},
	})
	return b
}

// WithMembers returns params (a JSON object, or nil for none) with the
// given members added in front; the params' own bytes are kept as they
// are, so that a case's arguments reach the server exactly as generated.
func WithMembers(params any, members ...any) (json.RawMessage, error) {
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

// SupportedFromData reads data.supported of a -32022 error, bounded.
func SupportedFromData(data json.RawMessage) []string {
	var d struct {
		Supported []json.RawMessage `json:"supported"`
	}
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	return BoundedVersions(d.Supported)
}

// BoundedVersions keeps the first [MaxSupportedVersions] string entries of
// a version list, each cut to [MaxVersionLen] bytes.
func BoundedVersions(raws []json.RawMessage) []string {
	var out []string
	for _, r := range raws {
		if len(out) == MaxSupportedVersions {
			break
		}
		var v string
		if json.Unmarshal(r, &v) != nil {
			continue
		}
		out = append(out, textcut.UTF8(v, MaxVersionLen))
	}
	return out
}

// InputRequired reads a result's resultType: done is true for a complete
// answer (resultType "complete" or absent); otherwise requests are the
// inputRequests to answer and state the requestState to send back. A
// malformed input_required answer is an error describing why.
func InputRequired(raw json.RawMessage) (done bool, requests map[string]json.RawMessage, state *string, err error) {
	return InputRequiredOf(ResultMembers(raw))
}

// ResultMembers are the members of a result object, nil when it is not
// one.
func ResultMembers(raw json.RawMessage) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	return fields
}

// InputRequiredOf is [InputRequired] of a result's members.
func InputRequiredOf(fields map[string]json.RawMessage) (done bool, requests map[string]json.RawMessage, state *string, err error) {
	if fields == nil {
		return true, nil, nil, nil
	}
	rt, ok := fields["resultType"]
	if !ok || string(rt) == "null" {
		return true, nil, nil, nil
	}
	var t string
	if json.Unmarshal(rt, &t) != nil {
		return true, nil, nil, fmt.Errorf("resultType is not a string: %s", textcut.Excerpt(string(rt), 60))
	}
	switch t {
	case "complete":
		return true, nil, nil, nil
	case "input_required":
	default:
		return true, nil, nil, fmt.Errorf("unknown resultType %q", textcut.Excerpt(t, 60))
	}
	if ir, ok := fields["inputRequests"]; ok && string(ir) != "null" {
		if json.Unmarshal(ir, &requests) != nil || requests == nil {
			return false, nil, nil, errors.New("inputRequests is not an object of requests")
		}
	}
	if len(requests) > MaxInputRequests {
		return false, nil, nil, fmt.Errorf("an input_required result with %d inputRequests (more than %d)", len(requests), MaxInputRequests)
	}
	if rs, ok := fields["requestState"]; ok && string(rs) != "null" {
		var v string
		if json.Unmarshal(rs, &v) != nil {
			return false, nil, nil, errors.New("requestState is not a string")
		}
		if len(v) > MaxRequestState {
			return false, nil, nil, fmt.Errorf("requestState of %d bytes (more than %d)", len(v), MaxRequestState)
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
			return false, nil, nil, fmt.Errorf("inputRequests[%q] has no method", textcut.Excerpt(k, 60))
		}
	}
	return false, requests, state, nil
}

// InputResponses answers input requests as an unattended client does:
// elicitations are declined; sampling and roots (deprecated in 2026-07-28)
// and anything else are refused by leaving them unanswered.
func InputResponses(requests map[string]json.RawMessage) map[string]any {
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
