// Package protocheck is what a protocol check is
// (docs/BEHAVIOUR.md#checks-beyond-single-calls): one request a conforming
// server answers in a given way, and the judging of what came back against
// that expectation. The engine plans the checks of each family and sends
// their requests; this package does no I/O.
package protocheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Request is the request of a protocol check.
type Request struct {
	Method string
	Params json.RawMessage // as sent; nil for none
	// Shown are the params as the report records them, when they may not
	// be the ones sent (nil: Params).
	Shown json.RawMessage
	// Headers replace mcp-fuzz's own HTTP headers for this request (an
	// empty value removes one); over stdio there are none.
	Headers http.Header
	// Notify sends the request as a notification (no id).
	Notify bool
}

// Expectation is how a check judges the answer to its request.
type Expectation struct {
	// Codes are the refusals the spec names; nil accepts any JSON-RPC
	// error.
	Codes []int64
	// Supported: the refusal must carry data.supported (-32022).
	Supported bool
	// Legacy are refusal codes the revision superseded (a
	// legacy_error_code finding).
	Legacy []int64
	// Served is the finding code of a request served as if it were valid
	// (report.CodeEnvelopeIgnored by default).
	Served string
	// ServedOK says whether a result is a pass after all (a fresh
	// input_required for a tampered requestState); nil: never.
	ServedOK func(raw json.RawMessage) bool
	// Deviation: silence, a garbled answer or one of DeviationCodes is a
	// protocol_deviation (warning), not a hang, protocol violation or
	// crash (the --protocol probes of pkg/engine).
	Deviation      bool
	DeviationCodes []int64
	// Silent: no answer at all is the pass (a notification).
	Silent bool
	// Refusal is the finding code of any JSON-RPC error when a result was
	// expected ("": an error passes).
	Refusal string
}

// Check is one check of a group.
type Check struct {
	ID, Title, Expected string
	// Skip says why the check cannot run on this target ("" when it can).
	Skip   string
	Req    Request
	Expect Expectation
}

// GroupOf is the group of a check id ("envelope" of "envelope/no-meta").
func GroupOf(id string) string {
	g, _, _ := strings.Cut(id, "/")
	return g
}

// Judge decides a check's status from the outcome of its request: a
// request that broke the server fails with the verdict's code, whatever
// the check expected; a refusal passes when its code is one the spec
// names; an answer passes only when the expectation allows it.
func Judge(e Expectation, o oracle.Outcome, h HTTPAnswer, c *report.Check) {
	fail := func(code, detail string) {
		c.Status, c.Code, c.Detail = report.CheckFail, code, detail
	}
	if over := o.Oversize; over != nil && (over.Ended || over.Malformed != "") {
		// Judged from the scan of the whole answer, as the oracle judges
		// it: an error answer over --max-response is a refusal with its
		// code, not a request served; a result, one served; one that
		// breaks JSON-RPC, a violation.
		o = o.Settled()
		o.Oversize = nil
	}
	switch {
	case o.Closed && h.Status >= 400:
		// Over HTTP the server answered, with a status and no JSON-RPC
		// error in the body (the SDK's transport gives up on that
		// connection; each request of the stateless era is independent).
		got := fmt.Sprintf("refused with HTTP %d and no JSON-RPC error in the body (%s)", h.Status, or(h.ContentType, "no content type"))
		switch {
		case e.Codes != nil && e.Deviation:
			// A probe's rule: an answer other than the spec's is a
			// deviation, over HTTP as over stdio.
			fail(report.CodeProtocolDeviation, got)
		case e.Codes != nil:
			fail(report.CodeWrongErrorCode, got)
		default:
			c.Status, c.Detail = report.CheckPass, got
		}
	case o.Closed && h.Status != 0:
		// Answered, but with no JSON-RPC response at all (a page, a 204,
		// a redirect): no refusal a client can read, yet no crash.
		fail(report.CodeWrongErrorCode, fmt.Sprintf("answered HTTP %d (%s) with no JSON-RPC response", h.Status, or(h.ContentType, "no content type")))
	case o.Closed:
		how := report.CrashExit
		what := "the server exited"
		if o.ExitStatus == "" {
			how, what = report.CrashClosed, "the connection closed"
		} else {
			what += " (" + o.ExitStatus + ")"
		}
		c.Crash = &report.CrashInfo{How: how}
		fail(string(report.Crash), what+" before answering")
	case (len(o.Violations) > 0 || o.CutShort) && e.Deviation:
		fail(report.CodeProtocolDeviation, or(strings.Join(o.Violations, "; "), "the answer broke the protocol"))
	case len(o.Violations) > 0 || o.CutShort:
		fail(string(report.ProtocolViolation), or(strings.Join(o.Violations, "; "), "the answer broke the protocol"))
	case o.Hung && e.Silent:
		c.Status, c.Detail = report.CheckPass, "no answer, as for any notification"
	case (o.Hung || o.Unended()) && e.Deviation:
		fail(report.CodeProtocolDeviation, "no answer within the check's timeout (the server is otherwise alive)")
	case o.Hung || o.Unended():
		fail(string(report.Hang), "no answer within the check's timeout")
	case o.Cancelled:
		c.Status, c.Detail = report.CheckSkip, "the run was interrupted"
	case o.Oversize != nil:
		fail(orCode(e.Served), fmt.Sprintf("answered with %d bytes (over --max-response), not an error", o.Oversize.Bytes))
	case o.RPCErr != nil:
		code := o.RPCErr.Code
		c.ErrorCode = &code
		got := fmt.Sprintf("refused with %d: %s", code, textcut.Excerpt(o.RPCErr.Message, 160))
		if h.Status != 0 {
			got += fmt.Sprintf(" (HTTP %d)", h.Status)
		}
		switch {
		case e.Refusal != "":
			fail(e.Refusal, got)
		case slices.Contains(e.DeviationCodes, code):
			fail(report.CodeProtocolDeviation, got)
		case slices.Contains(e.Legacy, code):
			fail(report.CodeLegacyErrorCode, got+"; "+or(Superseded(code), "a superseded code"))
		case e.Codes != nil && !slices.Contains(e.Codes, code) && e.Deviation:
			fail(report.CodeProtocolDeviation, got)
		case e.Codes != nil && !slices.Contains(e.Codes, code):
			fail(report.CodeWrongErrorCode, got)
		case e.Supported && !hasSupported(o.RPCErr.Data):
			fail(report.CodeWrongErrorCode, got+", without data.supported listing the versions the server speaks")
		default:
			c.Status, c.Detail = report.CheckPass, got
		}
	case e.ServedOK != nil && e.ServedOK(o.Result):
		c.Status, c.Detail = report.CheckPass, "answered: "+textcut.Excerpt(string(o.Result), 160)
	default:
		fail(orCode(e.Served), "served as if valid: "+textcut.Excerpt(string(o.Result), 160))
	}
}

// HTTPAnswer is the HTTP status and media type of a check's answer; zero
// over stdio.
type HTTPAnswer struct {
	Status      int
	ContentType string
}

func orCode(code string) string {
	if code == "" {
		return report.CodeEnvelopeIgnored
	}
	return code
}

// RequestLine is the JSON-RPC request of a check as a reproducer sends it
// (id 2: in a stdio reproducer it follows a request with id 1).
func RequestLine(method string, params json.RawMessage) json.RawMessage {
	m, _ := json.Marshal(method)
	line := `{"jsonrpc":"2.0","id":2,"method":` + string(m)
	if params != nil {
		line += `,"params":` + string(params)
	}
	return json.RawMessage(line + "}")
}

// Superseded says why an error code is not one the stateless era
// allows, "" when it is: -32002 (a missing resource, now -32602), the
// pre-final numbers of the new errors, and the rest of the range the
// specification reserves.
func Superseded(code int64) string {
	switch {
	case code == -32002:
		return "-32002 (resource not found) is replaced by -32602"
	case code == -32001:
		return "-32001 is the pre-final number of HeaderMismatch, now -32020"
	case code == -32003:
		return "-32003 is the pre-final number of MissingRequiredClientCapability, now -32021"
	case code == -32004:
		return "-32004 is the pre-final number of UnsupportedProtocolVersion, now -32022"
	case code <= -32020 && code >= -32099 && code != oracle.CodeHeaderMismatch && code != oracle.CodeMissingClientCapabilities && code != oracle.CodeUnsupportedProtocolVersion:
		return fmt.Sprintf("%d is in the range -32020…-32099 the specification reserves, and not one it defines", code)
	}
	return ""
}

// hasSupported reports whether the data of a -32022 refusal has a
// supported list naming at least one version.
func hasSupported(data json.RawMessage) bool {
	var d struct {
		Supported []json.RawMessage `json:"supported"`
	}
	if json.Unmarshal(data, &d) != nil {
		return false
	}
	for _, raw := range d.Supported {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			return true
		}
	}
	return false
}

// or is s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
