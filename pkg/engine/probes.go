package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The protocol probes (--protocol, docs/BEHAVIOUR.md#checks-beyond-single-calls) and the resources and prompts
// checks (docs/BEHAVIOUR.md#checks-beyond-single-calls) are protocol checks like the envelope ones (see
// [protocheck.Check] and [checkRun]), in either era. Real servers differ from the letter of the
// spec here — the TypeScript SDK sends no answer over stdio to a request
// whose params are not an object, and answers -32603 for a malformed
// resource-template parameter — so silence, a garbled answer and an
// internal error are a protocol_deviation (warning) on these checks, never
// a hang or a crash cap on an otherwise good server. A process that exits
// or a connection that drops is still a crash.

// probeTarget is what the probes and the resources and prompts checks need.
type probeTarget struct {
	era     string // the session's era: the modern one puts the envelope in
	version string // the negotiated protocol version
	listed  session.ListedItems
}

// probeTarget is what the probes and the resources and prompts checks of a
// need.
func (a *audit) probeTarget() probeTarget {
	return probeTarget{era: a.era(), version: a.version(), listed: a.s.Listed}
}

// probesPhase plans the --protocol probes of a (see [phases]).
func probesPhase(a *audit) []protocheck.Check { return probeChecks(a.probeTarget()) }

// resourcesPhase plans the resources checks of a, a server that declares
// resources (see [phases]).
func resourcesPhase(a *audit) []protocheck.Check { return resourceChecks(a.probeTarget()) }

// promptsPhase plans the prompts checks of a, a server that declares
// prompts (see [phases]).
func promptsPhase(a *audit) []protocheck.Check { return promptChecks(a.probeTarget()) }

// params are a request's params in t's era: with the _meta envelope in
// the modern one.
func (t probeTarget) params(p map[string]any) json.RawMessage {
	if t.era == EraModern {
		p["_meta"] = envelopeWith(t.version, nil)
	}
	b, _ := json.Marshal(p)
	return b
}

// deviant is an expectation whose silence, garbled answer or internal
// error is a protocol_deviation: any refusal passes, codes are the ones
// the spec names (nil: any).
func deviant(codes ...int64) protocheck.Expectation {
	return protocheck.Expectation{Codes: codes, Deviation: true, DeviationCodes: []int64{-32603}, Served: report.CodeBadRequestServed}
}

// probeChecks are the --protocol probes for t.
func probeChecks(t probeTarget) []protocheck.Check {
	list := t.params(map[string]any{})
	checks := []protocheck.Check{
		{ID: "probe/unknown-method", Title: "a method the server does not know is refused with -32601", Expected: "JSON-RPC error -32601",
			Req: protocheck.Request{Method: "mcp-fuzz/no-such-method", Params: list}, Expect: deviant(-32601)},
		{ID: "probe/unknown-tool", Title: "a tools/call of a tool the server does not list is refused (a JSON-RPC error or isError)", Expected: "an error",
			Req:    protocheck.Request{Method: "tools/call", Params: t.params(map[string]any{"name": "mcp_fuzz_no_such_tool", "arguments": map[string]any{}})},
			Expect: protocheck.Expectation{Deviation: true, Served: report.CodeBadRequestServed, ServedOK: isErrorAnswer}},
		{ID: "probe/garbage-cursor", Title: "a tools/list cursor the server never handed out is refused with -32602", Expected: "JSON-RPC error -32602",
			Req: protocheck.Request{Method: "tools/list", Params: t.params(map[string]any{"cursor": "mcp-fuzz-garbage-cursor-%%%"})}, Expect: deviant(-32602)},
		{ID: "probe/params-not-object", Title: "a request whose params are an array is refused with -32602 or -32600", Expected: "JSON-RPC error -32602 or -32600",
			Req: protocheck.Request{Method: "tools/list", Params: json.RawMessage(`[]`)}, Expect: deviant(-32602, -32600)},
		{ID: "probe/no-id", Title: "a request without an id (a notification) gets no answer", Expected: "no answer",
			Req: protocheck.Request{Method: "tools/list", Params: list, Notify: true}, Expect: protocheck.Expectation{Silent: true, Deviation: true}},
	}
	if t.era == EraLegacy {
		checks = append(checks,
			protocheck.Check{ID: "probe/ping", Title: "ping is answered", Expected: "an empty result",
				Req: protocheck.Request{Method: "ping"}, Expect: protocheck.Expectation{Deviation: true, ServedOK: func(json.RawMessage) bool { return true }, Refusal: report.CodeProtocolDeviation}},
			protocheck.Check{ID: "probe/second-initialize", Title: "a second initialize on a live session is answered (an error or a result), without harm", Expected: "an answer",
				Req: protocheck.Request{Method: "initialize", Params: mustJSON(map[string]any{
					"protocolVersion": session.LegacyVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "mcp-fuzz", "version": "0"}})},
				Expect: protocheck.Expectation{Deviation: true, ServedOK: func(json.RawMessage) bool { return true }}})
	}
	return checks
}

// isErrorAnswer reports whether a tools/call result is an isError one.
func isErrorAnswer(raw json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &r) == nil && r.IsError
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// missingURI is a resource URI no server has.
const missingURI = "mcp-fuzz://not-found/b1946ac9"

// resourceChecks are the resources checks for t (docs/BEHAVIOUR.md#checks-beyond-single-calls).
func resourceChecks(t probeTarget) []protocheck.Check {
	read := deviant(-32602)
	if t.era == EraModern {
		read.Legacy = []int64{-32002} // replaced by -32602 in 2026-07-28
	} else {
		read.Codes = []int64{-32602, -32002}
	}
	read.ServedOK = func(raw json.RawMessage) bool { return hasContents(raw) }
	checks := []protocheck.Check{{ID: "resources/read-missing", Title: "reading a resource that does not exist is refused",
		Expected: map[bool]string{true: "JSON-RPC error -32602", false: "JSON-RPC error -32602 (or -32002)"}[t.era == EraModern],
		Req:      protocheck.Request{Method: "resources/read", Params: t.params(map[string]any{"uri": missingURI})}, Expect: read}}
	return append(checks, templateChecks(t)...)
}

// hasContents reports whether a resources/read result has non-empty
// contents: a server may serve any URI (a template that matches all), but
// an empty answer for one that does not exist is no answer.
func hasContents(raw json.RawMessage) bool {
	var r struct {
		Contents []json.RawMessage `json:"contents"`
	}
	return json.Unmarshal(raw, &r) == nil && len(r.Contents) > 0
}

var templateVar = regexp.MustCompile(`\{[^{}]*\}`)

// malformedParam fills a template's variables: invalid percent-encoding
// and characters a URI may not hold, but no path traversal (a read-only
// request must not fetch the machine's files into a report).
const malformedParam = "%%mcp-fuzz%zz <>"

// maxProbeName bounds the server text a check puts in its request (a
// template's URI, a prompt's name, an argument's name): a longer one is not
// used, so that neither the request nor its reproducer grows with what the
// server listed (a template of many variables grows with each).
const maxProbeName = 1024

// templateChecks read, for each of the first few resource templates, its
// URI with malformed parameters.
func templateChecks(t probeTarget) []protocheck.Check {
	var checks []protocheck.Check
	for i, raw := range t.listed.Templates {
		if i == 3 {
			break
		}
		var tpl struct {
			URITemplate string `json:"uriTemplate"`
			Name        string `json:"name"`
		}
		if json.Unmarshal(raw, &tpl) != nil || len(tpl.URITemplate) > maxProbeName || !templateVar.MatchString(tpl.URITemplate) {
			continue
		}
		uri := templateVar.ReplaceAllString(tpl.URITemplate, malformedParam)
		e := deviant()
		e.ServedOK = func(json.RawMessage) bool { return true }
		checks = append(checks, protocheck.Check{ID: fmt.Sprintf("resources/template-%d", i+1),
			Title:    "reading template " + excerpt(tpl.URITemplate, 80) + " with malformed parameters is refused or answered, without harm",
			Expected: "an error (-32602) or contents", Req: protocheck.Request{Method: "resources/read", Params: t.params(map[string]any{"uri": uri})}, Expect: e})
	}
	return checks
}

// promptChecks get an unknown prompt, and the first prompt with a required
// argument without it and with a wrong-typed one.
func promptChecks(t probeTarget) []protocheck.Check {
	checks := []protocheck.Check{{ID: "prompts/get-unknown", Title: "getting a prompt the server does not list is refused with -32602", Expected: "JSON-RPC error -32602",
		Req: protocheck.Request{Method: "prompts/get", Params: t.params(map[string]any{"name": "mcp_fuzz_no_such_prompt"})}, Expect: deviant(-32602)}}
	name, arg, ok := promptWithRequired(t.listed.Prompts)
	missing := protocheck.Check{ID: "prompts/get-missing-argument", Title: "getting a prompt without its required argument is refused with -32602", Expected: "JSON-RPC error -32602", Expect: deviant(-32602)}
	wrong := protocheck.Check{ID: "prompts/get-wrong-type", Title: "getting a prompt with an argument that is not a string is refused with -32602", Expected: "JSON-RPC error -32602", Expect: deviant(-32602)}
	if !ok {
		missing.Skip = "no listed prompt has a required argument"
		wrong.Skip = missing.Skip
	} else {
		missing.Req = protocheck.Request{Method: "prompts/get", Params: t.params(map[string]any{"name": name, "arguments": map[string]any{}})}
		wrong.Req = protocheck.Request{Method: "prompts/get", Params: t.params(map[string]any{"name": name, "arguments": map[string]any{arg: 12345}})}
	}
	return append(checks, missing, wrong)
}

// promptWithRequired is the first listed prompt with a required argument,
// and that argument (names of at most [maxProbeName] bytes).
func promptWithRequired(prompts []json.RawMessage) (name, arg string, ok bool) {
	for _, raw := range prompts {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" || len(p.Name) > maxProbeName || strings.ContainsAny(p.Name, "\x00") {
			continue
		}
		for _, a := range p.Arguments {
			if a.Required && a.Name != "" && len(a.Name) <= maxProbeName {
				return p.Name, a.Name, true
			}
		}
	}
	return "", "", false
}
