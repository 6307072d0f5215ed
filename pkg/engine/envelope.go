package engine

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The envelope checks (modern era): requests whose _meta envelope, or HTTP
// headers, are broken in one way each. The revision asks every request to
// carry its protocol version and client capabilities (and allows client
// info); a server that serves a request without them is relying on earlier
// requests, which a stateless server must not do.

// unsupportedVersion is a well-formed version no server speaks.
const unsupportedVersion = "1900-01-01"

// envelopeWith is a _meta envelope for version with the given members
// replaced: a nil value removes the member.
func envelopeWith(version string, replace map[string]any) map[string]any {
	var env map[string]any
	_ = json.Unmarshal(stateless.Envelope(version, "mcp-fuzz", "0"), &env)
	for k, v := range replace {
		if v == nil {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	return env
}

// listWith is tools/list params carrying meta as their _meta (none when
// meta is nil).
func listWith(meta map[string]any) json.RawMessage {
	p := map[string]any{}
	if meta != nil {
		p["_meta"] = meta
	}
	b, _ := json.Marshal(p)
	return b
}

// envelopeTarget is what the envelope checks need to know of the audit.
type envelopeTarget struct {
	version string // the negotiated modern version
	http    bool
	// call is a tools/call the audit made and the server answered (a
	// confirmed tool safe to call again), for the Mcp-Name check; nil
	// when there is none.
	call *session.SampleCall
	// paramCall is such a call of a tool with x-mcp-header parameters
	// whose arguments have a value for one of them, for the Mcp-Param
	// check; nil when there is none.
	paramCall *session.SampleCall
	// inputRequired is a call the server answered with input_required and
	// a requestState; nil when none did.
	inputRequired *session.SampleCall
}

// envelopePhase plans the envelope checks of a (see [phases]).
func envelopePhase(a *audit) []protocheck.Check {
	return envelopeChecks(envelopeTarget{
		version:       a.version(),
		http:          a.cn.Transport != "stdio",
		call:          repeatableCall(a.rep.Tools, a.tools, a.s, false),
		paramCall:     repeatableCall(a.rep.Tools, a.tools, a.s, true),
		inputRequired: safeSample(a.cn.Observed.Sample(), a.tools),
	})
}

// envelopeChecks are the envelope checks for t, in the order they run.
func envelopeChecks(t envelopeTarget) []protocheck.Check {
	v := t.version
	anyRefusal := "any JSON-RPC error (-32602 is apt)"
	checks := []protocheck.Check{
		{ID: "envelope/no-meta", Title: "a request without _meta is refused", Expected: anyRefusal,
			Req: protocheck.Request{Method: "tools/list", Params: listWith(nil)}},
		{ID: "envelope/no-protocol-version", Title: "a request whose _meta has no protocol version is refused", Expected: anyRefusal,
			Req: protocheck.Request{Method: "tools/list", Params: listWith(envelopeWith(v, map[string]any{stateless.MetaProtocolVersion: nil}))}},
		{ID: "envelope/unsupported-version", Title: "a request for a protocol version the server does not speak is refused with UnsupportedProtocolVersionError", Expected: "JSON-RPC error -32022 with data.supported",
			Req:    protocheck.Request{Method: "tools/list", Params: listWith(envelopeWith(unsupportedVersion, nil))},
			Expect: protocheck.Expectation{Codes: []int64{oracle.CodeUnsupportedProtocolVersion}, Supported: true, Legacy: []int64{-32004}}},
		{ID: "envelope/malformed-version", Title: "a request whose protocol version is not a string is refused", Expected: anyRefusal,
			Req: protocheck.Request{Method: "tools/list", Params: listWith(envelopeWith(v, map[string]any{stateless.MetaProtocolVersion: 20260728}))}},
		{ID: "envelope/no-capabilities", Title: "a request whose _meta has no client capabilities is refused", Expected: anyRefusal,
			Req: protocheck.Request{Method: "tools/list", Params: listWith(envelopeWith(v, map[string]any{stateless.MetaClientCapabilities: nil}))}},
		{ID: "envelope/malformed-capabilities", Title: "a request whose client capabilities are not an object is refused", Expected: anyRefusal,
			Req: protocheck.Request{Method: "tools/list", Params: listWith(envelopeWith(v, map[string]any{stateless.MetaClientCapabilities: "all"}))}},
		{ID: "envelope/malformed-client-info", Title: "a request whose client info is not an object is refused", Expected: anyRefusal,
			Req:    protocheck.Request{Method: "tools/list", Params: listWith(envelopeWith(v, map[string]any{stateless.MetaClientInfo: "mcp-fuzz"}))},
			Expect: protocheck.Expectation{Served: report.CodeEnvelopeLenient}},
	}
	checks = append(checks, headerChecks(t)...)
	return append(checks, requestStateCheck(t))
}

// headerChecks are the Streamable HTTP checks: a routing header that
// contradicts the body, or is missing, is refused with HeaderMismatch.
func headerChecks(t envelopeTarget) []protocheck.Check {
	if !t.http {
		return nil
	}
	mismatch := "JSON-RPC error -32020 (HTTP 400)"
	list := listWith(envelopeWith(t.version, nil))
	hm := protocheck.Expectation{Codes: []int64{oracle.CodeHeaderMismatch}, Legacy: []int64{-32001}}
	checks := []protocheck.Check{
		{ID: "envelope/header-version-mismatch", Title: "an MCP-Protocol-Version header that contradicts _meta is refused", Expected: mismatch, Expect: hm,
			Req: protocheck.Request{Method: "tools/list", Params: list, Headers: http.Header{"Mcp-Protocol-Version": {session.LegacyVersion}}}},
		{ID: "envelope/header-method-mismatch", Title: "an Mcp-Method header that contradicts the body is refused", Expected: mismatch, Expect: hm,
			Req: protocheck.Request{Method: "tools/list", Params: list, Headers: http.Header{"Mcp-Method": {"prompts/list"}}}},
		{ID: "envelope/header-method-missing", Title: "a request without the Mcp-Method header is refused", Expected: mismatch, Expect: hm,
			Req: protocheck.Request{Method: "tools/list", Params: list, Headers: http.Header{"Mcp-Method": {""}}}},
	}
	name := protocheck.Check{ID: "envelope/header-name-mismatch", Title: "an Mcp-Name header that names another tool than the body is refused", Expected: mismatch, Expect: hm}
	switch {
	case t.call == nil:
		name.Skip = "no tool whose valid call succeeded is safe to call again (read-only or not destructive)"
	default:
		name.Req = protocheck.Request{Method: "tools/call", Params: t.call.Params,
			Headers: http.Header{"Mcp-Name": {mcpheader.NameValue(otherName(t.call.Tool))}}}
	}
	return append(checks, name, paramCheck(t))
}

// paramCheck sends a valid call of a tool with x-mcp-header parameters with
// one Mcp-Param header contradicting its argument: the next integer, the
// other boolean, another string. A server that ignores the header calls a
// tool already called, with arguments it already served.
func paramCheck(t envelopeTarget) protocheck.Check {
	c := protocheck.Check{ID: "envelope/header-param-mismatch", Title: "an Mcp-Param header that contradicts its argument in the body is refused",
		Expected: "JSON-RPC error -32020 (HTTP 400)", Expect: protocheck.Expectation{Codes: []int64{oracle.CodeHeaderMismatch}}}
	sc := t.paramCall
	if sc == nil {
		c.Skip = "no tool with an x-mcp-header parameter had a valid call that succeeded, sent a value for the parameter, and is safe to call again (read-only or not destructive)"
		return c
	}
	header, value, ok := mcpheader.Mismatch(sc.Bindings, sc.Args)
	if !ok {
		c.Skip = "the valid call of the sampled tool sends no value with a header form for its x-mcp-header parameters"
		return c
	}
	// The call's other Mcp-Param headers are right (see [repro.CheckHeaders]).
	c.Req = protocheck.Request{Method: "tools/call", Params: sc.Params, Headers: http.Header{header: {value}}}
	return c
}

// otherName is a tool name that is not name.
func otherName(name string) string {
	if name == "mcp_fuzz_other_tool" {
		return "mcp_fuzz_another_tool"
	}
	return "mcp_fuzz_other_tool"
}

// requestStateCheck sends back a requestState the server handed out with
// one byte changed. The spec lets a server skip integrity protection only
// when tampering can cause nothing worse than a failed request, which
// mcp-fuzz cannot know: a complete answer is a note, not a defect.
func requestStateCheck(t envelopeTarget) protocheck.Check {
	c := protocheck.Check{ID: "envelope/tampered-request-state", Title: "a tampered requestState is refused or asked for again",
		Expected: "a JSON-RPC error, or input_required again",
		Expect: protocheck.Expectation{Served: report.CodeEnvelopeLenient, ServedOK: func(raw json.RawMessage) bool {
			done, _, _, err := stateless.InputRequired(raw)
			return err == nil && !done
		}}}
	in := t.inputRequired
	if in == nil {
		c.Skip = "no call was answered with input_required and a requestState"
		return c
	}
	members := []any{"requestState", tamper(in.State)}
	if len(in.Inputs) > 0 {
		members = append(members, "inputResponses", in.Inputs)
	}
	params, err := stateless.WithMembers(in.Params, members...)
	if err != nil {
		c.Skip = "the call's params are not an object"
		return c
	}
	// The report shows a placeholder: the state is the server's opaque
	// text, and may carry what no report should (a token, base64'd).
	members[1] = fmt.Sprintf("REQUEST_STATE: the requestState of the call's input_required answer (%d bytes), one byte changed; not recorded, it may carry the server's secrets", len(in.State))
	shown, _ := stateless.WithMembers(in.Params, members...)
	c.Req = protocheck.Request{Method: "tools/call", Params: params, Shown: shown}
	return c
}

// tamper changes one byte in the middle of state (or makes an empty one
// non-empty), keeping it printable.
func tamper(state string) string {
	if state == "" {
		return "x"
	}
	b := []byte(state)
	i := len(b) / 2
	if b[i] >= 0x80 {
		// Not in the middle of a character: the state stays valid UTF-8.
		return state + "x"
	}
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// repeatableCall is the valid call of the first confirmed tool that is safe
// to call again (read-only, or not destructive), with the envelope of s:
// the Mcp-Name check sends it with a header naming another tool, so that
// a server that ignores the header calls a tool already called. With
// withParam, only a call that carries an Mcp-Param header qualifies.
func repeatableCall(tested []report.Tool, tools []tool, s *session.Session, withParam bool) *session.SampleCall {
	for _, rt := range tested {
		if !rt.Confirmed || !safeTool(rt.Name, tools) {
			continue
		}
		bindings := s.Params.Lookup(rt.Name)
		for _, c := range rt.Cases {
			if c.Kind != report.KindValid || c.Verdict != report.OK || c.ArgumentsDigest != nil {
				continue
			}
			params, err := stateless.WithMembers(mcptool.CallParams(rt.Name, c.Arguments), "_meta", s.Envelope())
			if err != nil {
				continue
			}
			if withParam && len(mcpheader.Headers(bindings, c.Arguments)) == 0 {
				break
			}
			return &session.SampleCall{Tool: rt.Name, Params: params, Args: c.Arguments, Bindings: bindings}
		}
	}
	return nil
}

// safeSample is sc when its tool is safe to call again, else nil.
func safeSample(sc *session.SampleCall, tools []tool) *session.SampleCall {
	if sc == nil || !safeTool(sc.Tool, tools) {
		return nil
	}
	return sc
}

// safeTool reports whether the tool called name may be called once more
// than the audit did (see [mcptool.Tool.RetrySafe]).
func safeTool(name string, tools []tool) bool {
	for _, t := range tools {
		if t.Name == name {
			return t.RetrySafe()
		}
	}
	return false
}
