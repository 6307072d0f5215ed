package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
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
// (docs/BEHAVIOUR.md#the-oracle). Codes in the implementation-defined server range -32000…-32099
// are internal errors too; see classifyCode.
var errorCodes = map[int64]codeClass{
	-32700: codeOther,        // parse error: we sent valid JSON, so an odd answer
	-32600: codeInvalidInput, // invalid request
	-32601: codeOther,        // method not found
	-32602: codeInvalidInput, // invalid params
	-32603: codeInternal,     // internal error, typically a thrown exception
	// The 2026-07-28 revision's protocol refusals, in the range it took
	// from the server errors: the request was refused before any tool
	// ran, not an escaped exception.
	codeHeaderMismatch:             codeInvalidInput,
	codeMissingClientCapabilities:  codeOther,
	codeUnsupportedProtocolVersion: codeOther,
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

// caseInfo is what the oracle knows of a case: what was sent, and what the
// schemas say of it.
type caseInfo struct {
	kind        casegen.Kind
	forbidden   bool // the tool's input schema forbids the arguments
	fromExample bool // the valid call's arguments are the user's own example
	// validate checks structuredContent against the tool's outputSchema;
	// nil when it declares none.
	validate    func(json.RawMessage) error
	args        json.RawMessage // the arguments sent, to tell an echo from a leak
	leak        *leak.Detector  // the run's secrets and the shapes of a leak
	maxResponse int             // --max-response, named in the bloated detail
}

// outcome is what came back for one call, as the session saw it: the
// server's text in it is already redacted.
type outcome struct {
	result     json.RawMessage // the raw result of a successful answer
	rpcErr     *rpc.Error
	hung       bool          // no answer within the call timeout
	closed     bool          // the connection ended before an answer
	cutShort   bool          // a protocol violation ended the wait for an answer
	cancelled  bool          // the run was cancelled before an answer
	oversize   *rpc.Oversize // the answer was over the response cap
	exitStatus string        // how the process ended, when it did
	// unsent is set with closed when the request never reached a live
	// server (see [runner.callCase]).
	unsent     bool
	violations []string // protocol violations seen on the wire during the call
	// pendingLine is how many bytes of an answer line had come, without
	// its end, when the call timed out.
	pendingLine int64
	// secrets names the run's secrets the answer and the call's violations
	// carried (redacted from them by the session).
	secrets []string
	// stderrPanic is set when a line that reads like a panic (see
	// isPanicLine) reached stderr during the call.
	stderrPanic bool
}

// unended reports whether an answer began but did not end within the call
// timeout: the stream is left mid-message.
func (o outcome) unended() bool {
	if over := o.oversize; over != nil {
		return over.Malformed == "" && !over.Ended
	}
	return o.hung && o.pendingLine > 0
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

// judgement is the oracle's answer for one case: everything the report
// records of it except its timing and, for a failure, the process's exit
// status and stderr.
type judgement struct {
	verdict   report.Verdict
	crash     string // exit, closed, internal_error
	detail    string // redacted
	errorCode *int64 // the code of a JSON-RPC error answer
	flags     []string
	response  string // a redacted excerpt of the answer
	size      int    // characters of the answer (bytes of an oversize one)
	result    *callResult
}

// judge is the oracle (docs/BEHAVIOUR.md#the-oracle): from what a case was and what came back for
// it, the verdict and its detail, and the flags that are independent of the
// verdict (bloated for an answer over the response cap, leak, stderr_panic).
// It does no I/O: the session gathered everything it reads. Whether the
// session survives is not its business.
func judge(c caseInfo, o outcome) judgement {
	if o.cancelled {
		return judgement{verdict: report.NotRun, detail: "run cancelled"}
	}
	validate := c.validate
	if o.oversize != nil {
		validate = nil // structuredContent was not read
	}
	o = o.settled()
	var j judgement
	if c.kind == casegen.Valid {
		j = judgeValid(o, c.fromExample, validate)
	} else {
		j = judgeBad(c.kind == casegen.Structural, c.forbidden, o)
	}
	j.detail = c.leak.Redact(j.detail)
	if o.rpcErr != nil {
		code := o.rpcErr.Code
		j.errorCode = &code
	}

	text := ""
	switch {
	case j.result != nil:
		text = j.result.Text + string(j.result.StructRaw)
		j.size = j.result.Size
	case o.rpcErr != nil:
		text = o.rpcErr.Message + " " + string(o.rpcErr.Data)
	}
	if o.oversize != nil {
		j.size = int(min(o.oversize.Bytes, int64(^uint(0)>>1)))
		j.flags = append(j.flags, report.FlagBloated)
		// First, so that a cut detail still says it.
		j.detail = joinDetail(fmt.Sprintf("bloated: an answer of %d bytes, over --max-response %d; the rest was counted, not read", o.oversize.Bytes, c.maxResponse), j.detail)
	}
	// Redacted before the final cut, so that a token straddling it is hidden
	// whole rather than shown in part.
	j.response = excerpt(c.leak.Redact(excerpt(text, 600)), 300)
	if leaks := leaks(c.leak, c.args, text, o.secrets); len(leaks) > 0 {
		j.flags = append(j.flags, report.FlagLeak)
		// One line per kind of leak, after the verdict's own detail if any
		// (an empty detail used to leave "; leak: …").
		var seen []string
		for _, l := range leaks {
			if !slices.Contains(seen, l) {
				seen = append(seen, l)
			}
		}
		j.detail = strings.TrimPrefix(j.detail+"; leak: "+strings.Join(seen, ", "), "; ")
	}
	if o.stderrPanic {
		j.flags = append(j.flags, report.FlagStderrPanic)
	}
	return j
}

// settled is o as the verdict rules read it. An answer that began and never
// ended, or an answer over the response cap that breaks JSON-RPC, is a
// protocol violation, after those seen on the wire: padding a broken answer
// past the cap must not launder it. An oversize answer that ended is the
// error answer and code, or the result and isError, that the scan of the
// whole answer found, built by mcp-fuzz, never taken from the server's bytes.
func (o outcome) settled() outcome {
	o.violations = slices.Clone(o.violations)
	if over := o.oversize; over != nil {
		switch {
		case over.Malformed != "":
			o.violations = append(o.violations, fmt.Sprintf("an answer of %d bytes that breaks JSON-RPC: %s", over.Bytes, over.Malformed))
		case !over.Ended:
			o.violations = append(o.violations, fmt.Sprintf("an answer of over %d bytes that had not ended within the call timeout", over.Bytes))
		case over.IsErrorAnswer:
			o.rpcErr = &rpc.Error{Code: over.Code, Message: fmt.Sprintf("(an error answer of %d bytes, not read; it starts: %s)", over.Bytes, over.Head)}
		default:
			isError := over.IsError != nil && *over.IsError
			text, _ := json.Marshal(fmt.Sprintf("(an answer of %d bytes, not read; it starts: %s)", over.Bytes, over.Head))
			o.result = fmt.Appendf(nil, `{"content":[{"type":"text","text":%s}],"isError":%t}`, text, isError)
		}
	} else if o.unended() {
		o.violations = append(o.violations, fmt.Sprintf("an answer line that never ended: %d bytes without a newline within the call timeout", o.pendingLine))
	}
	return o
}

// judgeFailure handles the outcomes that are failures whatever the case.
func judgeFailure(o outcome) (judgement, bool) {
	switch {
	case len(o.violations) > 0:
		return judgement{verdict: report.ProtocolViolation, detail: strings.Join(o.violations, "; ")}, true
	case o.hung:
		return judgement{verdict: report.Hang, detail: "no answer within the call timeout"}, true
	case o.closed && o.unsent && o.exitStatus != "":
		return judgement{verdict: report.Crash, crash: report.CrashExit, detail: "the server had exited (" + o.exitStatus + ") before this call was sent, on a freshly started server"}, true
	case o.closed && o.unsent:
		return judgement{verdict: report.Crash, crash: report.CrashClosed, detail: "the server had closed the connection before this call was sent, on a freshly started server"}, true
	case o.closed && o.exitStatus != "":
		return judgement{verdict: report.Crash, crash: report.CrashExit, detail: "server process exited (" + o.exitStatus + ")"}, true
	case o.closed:
		return judgement{verdict: report.Crash, crash: report.CrashClosed, detail: "connection closed before an answer"}, true
	}
	return judgement{}, false
}

// judgeBad gives the verdict of a bad-input case (docs/BEHAVIOUR.md#the-oracle).
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

// syntheticHint follows the detail of a valid call that errored on
// generated input; a learned call that worked drops it from the first
// attempt's detail, where the advice no longer applies.
const syntheticHint = " (may be a synthetic-input false positive: give a realistic example in the config file)"

// judgeValid gives the verdict of the valid case. validate checks
// structuredContent against the outputSchema (nil when none is declared).
func judgeValid(o outcome, fromExample bool, validate func(json.RawMessage) error) judgement {
	if j, ok := judgeFailure(o); ok {
		return j
	}
	synthetic := syntheticHint
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

// leaks describes what an answer leaked: the secrets it carried (already
// redacted from text; their names are in secretsSeen) and the stack traces,
// source paths and secret-shaped tokens in text. What the arguments of the
// call also carry is an echo of mcp-fuzz's own input, not a leak.
func leaks(d *leak.Detector, args json.RawMessage, text string, secretsSeen []string) []string {
	var out []string
	echoed := d.Sources(string(args))
	for _, name := range secretsSeen {
		if !slices.Contains(echoed, name) {
			out = append(out, "value of "+name)
		}
	}
	for _, m := range d.Find(text) {
		if !echoes(args, m.Text) {
			out = append(out, m.Detail)
		}
	}
	return out
}

// echoes reports whether the arguments of a call contain text, as is or
// JSON-escaped.
func echoes(args json.RawMessage, text string) bool {
	if text == "" || len(args) == 0 {
		return false
	}
	if bytes.Contains(args, []byte(text)) {
		return true
	}
	quoted, err := json.Marshal(text)
	return err == nil && bytes.Contains(args, quoted[1:len(quoted)-1])
}

// isPanicLine recognises the first line runtimes print for an uncaught
// failure. The session applies it to each stderr line as it comes (a call's
// stderr is not kept: it may be a flood); a match during a call is the
// stderr_panic flag of its case.
func isPanicLine(line string) bool {
	for _, p := range []string{"panic:", "fatal error:", "Traceback (most recent call last)", "Uncaught", "UnhandledPromiseRejection", "Unhandled exception", "thread 'main' panicked", "panicked at"} {
		if strings.Contains(line, p) {
			return true
		}
	}
	return false
}

// excerpt shortens s to at most n runes on one line.
func excerpt(s string, n int) string { return textcut.Excerpt(s, n) }
