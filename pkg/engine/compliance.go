package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The compliance checks (modern era) hold the server to the rules the
// 2026-07-28 revision changed: removed methods, renumbered error codes,
// resultType and cache hints on results, input requests only as the client
// declared, deprecated features. Some send a request of their own; the
// others judge what the audit's answers showed (see [session.Observed]).

// complianceTarget is what the request-sending compliance checks need.
// (A missing resource's -32002 is the resources/read-missing check's.)
type complianceTarget struct {
	version string
}

// compliancePhase plans the compliance checks of a that send a request
// (see [phases]).
func compliancePhase(a *audit) []protocheck.Check {
	return complianceChecks(complianceTarget{version: a.version()})
}

// complianceChecks are the compliance checks that send a request.
func complianceChecks(t complianceTarget) []protocheck.Check {
	with := probeTarget{era: EraModern, version: t.version}.params
	refused := "any JSON-RPC error (-32601 is apt)"
	return []protocheck.Check{
		{ID: "compliance/ping-removed", Title: "ping, removed by the revision, is not served", Expected: refused,
			Req:    protocheck.Request{Method: "ping", Params: with(map[string]any{})},
			Expect: protocheck.Expectation{Served: report.CodeRemovedMethodServed}},
		{ID: "compliance/set-level-removed", Title: "logging/setLevel, removed by the revision, is not served", Expected: refused,
			Req:    protocheck.Request{Method: "logging/setLevel", Params: with(map[string]any{"level": "debug"})},
			Expect: protocheck.Expectation{Served: report.CodeRemovedMethodServed}},
		{ID: "compliance/roots-not-served", Title: "roots/list, a client method whose feature is deprecated, is not served", Expected: refused,
			Req:    protocheck.Request{Method: "roots/list", Params: with(map[string]any{})},
			Expect: protocheck.Expectation{Served: report.CodeDeprecatedFeature}},
	}
}

// observedPhase judges what the answers of a showed (see [phases]).
func observedPhase(_ context.Context, a *audit) []report.Check {
	return observedChecks(a.cn.Observed, a.s.Init.Capabilities)
}

// handshakePhase is the failed compliance/no-handshake check of a server
// that answered server/discover, then wanted initialize (see [phases]).
// It was found during discovery, which a static audit makes too: no
// request of its own.
func handshakePhase(_ context.Context, a *audit) []report.Check {
	return []report.Check{noHandshakeCheck(a.cn.HandshakeRequired)}
}

// observedChecks judge what the audit's answers and the server's messages
// showed (caps: the capabilities server/discover declared).
func observedChecks(o *session.Observed, caps json.RawMessage) []report.Check {
	o.Mu.Lock()
	defer o.Mu.Unlock()
	return []report.Check{
		{ID: "compliance/no-handshake", Group: "compliance", Title: noHandshakeTitle, Status: report.CheckPass,
			Expected: "the stateless tools/list served", Detail: "the audit ran without initialize"},
		resultTypeCheck(o.Results),
		cacheHintsCheck(o.Results),
		errorCodesCheck(o.Codes),
		inputRequestsCheck(o.InputKinds, o.ServerMessages),
		deprecatedCheck(o.ServerMessages, caps),
	}
}

// observedCheck is a check judged from the audit's answers: failed with
// code and detail when detail is not "", else passed with pass.
func observedCheck(id, title, expected, code, detail, pass string) report.Check {
	c := report.Check{ID: id, Group: protocheck.GroupOf(id), Title: title, Expected: expected, Status: report.CheckPass, Detail: pass}
	if detail != "" {
		c.Status, c.Code, c.Detail = report.CheckFail, code, detail
	}
	return c
}

// noHandshakeTitle is what the compliance/no-handshake check asks.
const noHandshakeTitle = "a server that answers server/discover serves stateless requests without initialize"

// noHandshakeCheck is the failed compliance/no-handshake check: the server
// answered server/discover, then wanted initialize (why).
func noHandshakeCheck(why string) report.Check {
	return report.Check{ID: "compliance/no-handshake", Group: "compliance", Title: noHandshakeTitle, Status: report.CheckFail,
		Code: report.CodeHandshakeRequired, Expected: "the stateless tools/list served", Detail: why + "; audited in the legacy era instead"}
}

func resultTypeCheck(results map[string]*session.ResultStats) report.Check {
	var bad []string
	n := 0
	for _, m := range slices.Sorted(maps.Keys(results)) {
		st := results[m]
		n += st.N
		if st.Untyped > 0 {
			bad = append(bad, fmt.Sprintf("%s (%d of %d)", m, st.Untyped, st.N))
		}
	}
	detail := ""
	if len(bad) > 0 {
		detail = "results without resultType: " + strings.Join(bad, ", ")
	}
	c := observedCheck("compliance/result-type", "every result carries resultType", "resultType on every result",
		report.CodeMissingResultType, detail, fmt.Sprintf("all %d results of the audit carried resultType", n))
	if n == 0 {
		c.Status, c.Detail = report.CheckSkip, "no result of a modern request to look at"
	}
	return c
}

func cacheHintsCheck(results map[string]*session.ResultStats) report.Check {
	var bad, seen []string
	for _, m := range slices.Sorted(maps.Keys(results)) {
		if !session.Cacheable(m) {
			continue
		}
		seen = append(seen, m)
		if p := results[m].CacheProblem; p != "" {
			bad = append(bad, m+": "+p)
		}
	}
	detail := ""
	if len(bad) > 0 {
		detail = strings.Join(bad, "; ")
	}
	c := observedCheck("compliance/cache-hints", "list results carry ttlMs (a non-negative integer, at most a year) and cacheScope (public or private)",
		"ttlMs and cacheScope on every cacheable result", report.CodeMissingCacheHints, detail, "sound on "+strings.Join(seen, ", "))
	if len(seen) == 0 {
		c.Status, c.Detail = report.CheckSkip, "no cacheable result to look at"
	}
	return c
}

func errorCodesCheck(codes map[int64]string) report.Check {
	var bad []string
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		bad = append(bad, protocheck.Superseded(code)+" (answered to "+codes[code]+")")
	}
	return observedCheck("compliance/error-codes", "error codes are the revision's: no -32002, no pre-final or undefined code in -32020…-32099",
		"the revision's error codes", report.CodeLegacyErrorCode, strings.Join(bad, "; "), "no superseded or reserved error code in the audit's answers")
}

func inputRequestsCheck(kinds []string, messages map[string]int) report.Check {
	bad := slices.Clone(kinds)
	for _, m := range slices.Sorted(maps.Keys(messages)) {
		if !strings.HasPrefix(m, "notifications/") {
			bad = append(bad, fmt.Sprintf("%s as a server-initiated request (%d)", m, messages[m]))
		}
	}
	detail := ""
	if len(bad) > 0 {
		detail = "input requests the client did not declare, or outside tools/call, prompts/get and resources/read: " + strings.Join(bad, ", ")
	}
	return observedCheck("compliance/input-requests", "the server asks for input only as the client declared (elicitation), inside an input_required result",
		"only declared input requests, inside input_required results", report.CodeUndeclaredInputRequest, detail, "no undeclared input request")
}

func deprecatedCheck(messages map[string]int, caps json.RawMessage) report.Check {
	var used []string
	if n := messages["notifications/message"]; n > 0 {
		used = append(used, fmt.Sprintf("logging notifications (%d notifications/message)", n))
	}
	var c map[string]json.RawMessage
	_ = json.Unmarshal(caps, &c)
	if _, ok := c["logging"]; ok {
		used = append(used, "the logging capability")
	}
	if _, ok := c["tasks"]; ok {
		used = append(used, "the core tasks capability (tasks are the extension io.modelcontextprotocol/tasks now)")
	}
	return observedCheck("compliance/deprecated-features", "the server uses no deprecated feature (logging, tasks in core capabilities)",
		"no deprecated feature", report.CodeDeprecatedFeature, strings.Join(used, "; "), "none seen")
}

// declares reports whether the capabilities object caps has capability.
func declares(caps json.RawMessage, capability string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(caps, &m)
	_, ok := m[capability]
	return ok
}
