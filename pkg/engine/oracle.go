package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// codeClass is what a JSON-RPC error code means for the oracle.
type codeClass int

const (
	codeInvalidInput codeClass = iota // the server refused the input: safe
	codeInternal                      // an exception escaped: a crash the server survived
	codeOther                         // application-defined
)

// errorCodes is the single table of JSON-RPC error codes the oracle knows
// (SPEC §6). Codes in the implementation-defined server range -32000…-32099
// are internal errors too; see classifyCode.
var errorCodes = map[int64]codeClass{
	-32700: codeOther,        // parse error: we sent valid JSON, so an odd answer
	-32600: codeInvalidInput, // invalid request
	-32601: codeOther,        // method not found
	-32602: codeInvalidInput, // invalid params
	-32603: codeInternal,     // internal error, typically a thrown exception
}

func classifyCode(code int64) codeClass {
	if c, ok := errorCodes[code]; ok {
		return c
	}
	if code <= -32000 && code >= -32099 {
		return codeInternal
	}
	return codeOther
}

// outcome is what came back for one call.
type outcome struct {
	result     json.RawMessage // the raw result of a successful answer
	rpcErr     *rpc.Error
	hung       bool          // no answer within the call timeout
	closed     bool          // the connection ended before an answer
	cutShort   bool          // a protocol violation ended the wait for an answer
	oversize   *rpc.Oversize // the answer was over the response cap
	unended    bool          // an answer began but did not end within the timeout
	exitStatus string        // how the process ended, when it did
	violations []string      // protocol violations seen during the call
}

// callResult is the part of a CallToolResult the oracle reads.
type callResult struct {
	IsError    bool
	Content    int  // number of content blocks
	Structured bool // structuredContent present
	StructRaw  json.RawMessage
	Text       string // text of the content blocks, for leak checks
	Size       int    // characters of text plus serialized structured content
}

// parseCallResult checks raw against the CallToolResult shape.
func parseCallResult(raw json.RawMessage) (callResult, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return callResult{}, fmt.Errorf("result is not an object: %s", excerpt(string(raw), 80))
	}
	var r callResult
	if v, ok := fields["isError"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &r.IsError); err != nil {
			return r, fmt.Errorf("isError is not a boolean")
		}
	}
	content, ok := fields["content"]
	if !ok {
		return r, fmt.Errorf("result has no content array")
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(content, &blocks); err != nil {
		return r, fmt.Errorf("content is not an array of objects: %s", excerpt(string(content), 80))
	}
	var text strings.Builder
	for i, b := range blocks {
		var typ string
		if err := json.Unmarshal(b["type"], &typ); err != nil || typ == "" {
			return r, fmt.Errorf("content[%d] has no string type", i)
		}
		if typ == "text" {
			var s string
			if err := json.Unmarshal(b["text"], &s); err != nil {
				return r, fmt.Errorf("content[%d] is a text block without a string text", i)
			}
			text.WriteString(s)
			text.WriteByte('\n')
		}
	}
	r.Content = len(blocks)
	r.Text = text.String()
	r.Size = len([]rune(r.Text))
	if sc, ok := fields["structuredContent"]; ok && string(sc) != "null" {
		r.Structured = true
		r.StructRaw = sc
		r.Size += len(sc)
	}
	return r, nil
}

// judgement is the oracle's answer for one case.
type judgement struct {
	verdict report.Verdict
	crash   string // exit, closed, internal_error
	detail  string
	result  *callResult
}

// judgeFailure handles the outcomes that are failures whatever the case.
func judgeFailure(o outcome) (judgement, bool) {
	switch {
	case len(o.violations) > 0:
		return judgement{verdict: report.ProtocolViolation, detail: strings.Join(o.violations, "; ")}, true
	case o.hung:
		return judgement{verdict: report.Hang, detail: "no answer within the call timeout"}, true
	case o.closed && o.exitStatus != "":
		return judgement{verdict: report.Crash, crash: report.CrashExit, detail: "server process exited (" + o.exitStatus + ")"}, true
	case o.closed:
		return judgement{verdict: report.Crash, crash: report.CrashClosed, detail: "connection closed before an answer"}, true
	}
	return judgement{}, false
}

// judgeBad gives the verdict of a bad-input case (SPEC §6).
func judgeBad(structural, forbidden bool, o outcome) judgement {
	if j, ok := judgeFailure(o); ok {
		return j
	}
	if e := o.rpcErr; e != nil {
		detail := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, excerpt(e.Message, 200))
		if structural {
			// A non-object arguments value is a malformed request: any
			// JSON-RPC error is a refusal, though -32602 is the right code.
			if e.Code != -32602 && e.Code != -32600 {
				detail += " (expected -32602)"
			}
			return judgement{verdict: report.Rejected, detail: detail}
		}
		if classifyCode(e.Code) == codeInternal {
			return judgement{verdict: report.Crash, crash: report.CrashInternalError, detail: detail}
		}
		return judgement{verdict: report.Rejected, detail: detail}
	}
	r, err := parseCallResult(o.result)
	if err != nil {
		return judgement{verdict: report.ProtocolViolation, detail: "not a CallToolResult: " + err.Error()}
	}
	j := judgement{result: &r}
	switch {
	case r.IsError:
		j.verdict, j.detail = report.Handled, "isError: "+excerpt(r.Text, 200)
	case forbidden:
		j.verdict, j.detail = report.Accepted, "success on input the schema forbids"
	default:
		j.verdict, j.detail = report.Tolerated, "success on input the schema allows"
	}
	return j
}

// maxValidatedOutput is the largest structuredContent checked against an
// outputSchema.
const maxValidatedOutput = 64 << 10

// judgeValid gives the verdict of the valid case. validate checks
// structuredContent against the outputSchema (nil when none is declared).
func judgeValid(o outcome, fromExample bool, validate func(json.RawMessage) error) judgement {
	if j, ok := judgeFailure(o); ok {
		return j
	}
	synthetic := " (may be a synthetic-input false positive: give a realistic example in the config file)"
	if fromExample {
		synthetic = " (the input is your own example)"
	}
	if e := o.rpcErr; e != nil {
		detail := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, excerpt(e.Message, 200))
		if classifyCode(e.Code) == codeInternal {
			return judgement{verdict: report.Crash, crash: report.CrashInternalError, detail: detail}
		}
		return judgement{verdict: report.Errored, detail: detail + synthetic}
	}
	r, err := parseCallResult(o.result)
	if err != nil {
		return judgement{verdict: report.ProtocolViolation, detail: "not a CallToolResult: " + err.Error()}
	}
	j := judgement{result: &r}
	switch {
	case r.IsError:
		j.verdict, j.detail = report.Errored, "isError: "+excerpt(r.Text, 200)+synthetic
	case validate != nil && !r.Structured:
		j.verdict, j.detail = report.OutputViolation, "outputSchema declared but structuredContent is missing"
	case validate != nil && len(r.StructRaw) > maxValidatedOutput:
		// A validator decodes the whole instance and may report an error per
		// element: millions of them for a hostile 4 MiB array.
		j.verdict = report.OK
		j.detail = fmt.Sprintf("structuredContent of %d bytes not checked against outputSchema (over %d)", len(r.StructRaw), maxValidatedOutput)
	case validate != nil:
		if err := validate(r.StructRaw); err != nil {
			j.verdict, j.detail = report.OutputViolation, "structuredContent does not match outputSchema: "+excerpt(err.Error(), 200)
		} else {
			j.verdict = report.OK
		}
	case r.Content == 0 && !r.Structured:
		j.verdict, j.detail = report.EmptySuccess, "success with no content and no structured content"
	default:
		j.verdict = report.OK
	}
	return j
}

// excerpt shortens s to at most n runes on one line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
