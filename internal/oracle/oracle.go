// Package oracle judges one call (docs/BEHAVIOUR.md#the-oracle): from what a
// case was and what came back for it, the verdict, its detail and the flags
// that do not depend on it. It does no I/O: the session gathers everything
// it reads into an [Outcome].
package oracle

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

// Class is what a JSON-RPC error code means for the oracle.
type Class int

const (
	ClassInvalidInput Class = iota // the server refused the input: safe
	ClassInternal                  // an exception escaped: a crash the server survived
	ClassOther                     // application-defined
)

// errorCodes is the single table of JSON-RPC error codes the oracle knows
// (docs/BEHAVIOUR.md#the-oracle). Codes in the implementation-defined server range -32000…-32099
// are internal errors too; see [Classify].
var errorCodes = map[int64]Class{
	-32700: ClassOther,        // parse error: we sent valid JSON, so an odd answer
	-32600: ClassInvalidInput, // invalid request
	-32601: ClassOther,        // method not found
	-32602: ClassInvalidInput, // invalid params
	-32603: ClassInternal,     // internal error, typically a thrown exception
	// The 2026-07-28 revision's protocol refusals, in the range it took
	// from the server errors: the request was refused before any tool
	// ran, not an escaped exception.
	CodeHeaderMismatch:             ClassInvalidInput,
	CodeMissingClientCapabilities:  ClassOther,
	CodeUnsupportedProtocolVersion: ClassOther,
}

// Classify says what a JSON-RPC error code means for the oracle.
func Classify(code int64) Class {
	if c, ok := errorCodes[code]; ok {
		return c
	}
	if code <= -32000 && code >= -32099 {
		return ClassInternal
	}
	return ClassOther
}

// Case is what the oracle knows of a case: what was sent, and what the
// schemas say of it.
type Case struct {
	Kind        casegen.Kind
	Forbidden   bool // the tool's input schema forbids the arguments
	FromExample bool // the valid call's arguments are the user's own example
	// Validate checks structuredContent against the tool's outputSchema;
	// nil when it declares none.
	Validate    func(json.RawMessage) error
	Args        json.RawMessage // the arguments sent, to tell an echo from a leak
	Leak        *leak.Detector  // the run's secrets and the shapes of a leak
	MaxResponse int             // --max-response, named in the bloated detail
}

// Outcome is what came back for one call, as the session saw it: the
// server's text in it is already redacted.
type Outcome struct {
	Result     json.RawMessage // the raw result of a successful answer
	RPCErr     *rpc.Error
	Hung       bool          // no answer within the call timeout
	Closed     bool          // the connection ended before an answer
	CutShort   bool          // a protocol violation ended the wait for an answer
	Cancelled  bool          // the run was cancelled before an answer
	Oversize   *rpc.Oversize // the answer was over the response cap
	ExitStatus string        // how the process ended, when it did
	// Unsent is set with closed when the request never reached a live
	// server (the caller decides: see runner.callCase in pkg/engine).
	Unsent     bool
	Violations []string // protocol violations seen on the wire during the call
	// PendingLine is how many bytes of an answer line had come, without
	// its end, when the call timed out.
	PendingLine int64
	// Secrets names the run's secrets the answer and the call's violations
	// carried (redacted from them by the session).
	Secrets []string
	// StderrPanic is set when a line that reads like a panic (see
	// [IsPanicLine]) reached stderr during the call.
	StderrPanic bool
}

// Unended reports whether an answer began but did not end within the call
// timeout: the stream is left mid-message.
func (o Outcome) Unended() bool {
	if over := o.Oversize; over != nil {
		return over.Malformed == "" && !over.Ended
	}
	return o.Hung && o.PendingLine > 0
}

// CallResult is the part of a CallToolResult the oracle reads.
type CallResult struct {
	IsError    bool
	Content    int  // number of content blocks
	Structured bool // structuredContent present
	StructRaw  json.RawMessage
	Text       string // text of the content blocks, for leak checks
	Size       int    // characters of text plus serialized structured content
}

// ParseCallResult checks raw against the CallToolResult shape.
func ParseCallResult(raw json.RawMessage) (CallResult, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return CallResult{}, fmt.Errorf("result is not an object: %s", textcut.Excerpt(string(raw), 80))
	}
	var r CallResult
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
		return r, fmt.Errorf("content is not an array of objects: %s", textcut.Excerpt(string(content), 80))
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

// Judgement is the oracle's answer for one case: everything the report
// records of it except its timing and, for a failure, the process's exit
// status and stderr.
type Judgement struct {
	Verdict   report.Verdict
	Crash     string // exit, closed, internal_error
	Detail    string // redacted
	ErrorCode *int64 // the code of a JSON-RPC error answer
	Flags     []string
	Response  string // a redacted excerpt of the answer
	Size      int    // characters of the answer (bytes of an oversize one)
	Result    *CallResult
}

// Judge is the oracle (docs/BEHAVIOUR.md#the-oracle): from what a case was and what came back for
// it, the verdict and its detail, and the flags that are independent of the
// verdict (bloated for an answer over the response cap, leak, stderr_panic).
// It does no I/O: the session gathered everything it reads. Whether the
// session survives is not its business.
func Judge(c Case, o Outcome) Judgement {
	if o.Cancelled {
		return Judgement{Verdict: report.NotRun, Detail: "run cancelled"}
	}
	validate := c.Validate
	if o.Oversize != nil {
		validate = nil // structuredContent was not read
	}
	o = o.Settled()
	var j Judgement
	if c.Kind == casegen.Valid {
		j = judgeValid(o, c.FromExample, validate, c.Leak.Redact)
	} else {
		// Structural arguments that are an object after all ({}) are
		// judged as every other object is: the same answer to {} and to
		// a missing required property gets the same verdict.
		j = judgeBad(c.Kind == casegen.Structural && !isObject(c.Args), c.Forbidden, o, c.Leak.Redact)
	}
	j.Detail = c.Leak.Redact(j.Detail)
	if o.RPCErr != nil {
		code := o.RPCErr.Code
		j.ErrorCode = &code
	}

	text := ""
	switch {
	case j.Result != nil:
		text = j.Result.Text + string(j.Result.StructRaw)
		j.Size = j.Result.Size
	case o.RPCErr != nil:
		text = o.RPCErr.Message + " " + string(o.RPCErr.Data)
	}
	if o.Oversize != nil && o.Oversize.Bytes > int64(c.MaxResponse) {
		j.Size = int(min(o.Oversize.Bytes, int64(^uint(0)>>1)))
		j.Flags = append(j.Flags, report.FlagBloated)
		// First, so that a cut detail still says it.
		j.Detail = JoinDetail(fmt.Sprintf("bloated: an answer of %d bytes, over --max-response %d; the rest was counted, not read", o.Oversize.Bytes, c.MaxResponse), j.Detail)
	}
	j.Response = redactedExcerpt(c.Leak.Redact, text, 300)
	if leaks := leaks(c.Leak, c.Args, text, o.Secrets); len(leaks) > 0 {
		j.Flags = append(j.Flags, report.FlagLeak)
		// One line per kind of leak, after the verdict's own detail if any
		// (an empty detail used to leave "; leak: …").
		var seen []string
		for _, l := range leaks {
			if !slices.Contains(seen, l) {
				seen = append(seen, l)
			}
		}
		j.Detail = strings.TrimPrefix(j.Detail+"; leak: "+strings.Join(seen, ", "), "; ")
	}
	if o.StderrPanic {
		j.Flags = append(j.Flags, report.FlagStderrPanic)
	}
	return j
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// Settled is o as the verdict rules read it. An answer that began and never
// ended, or an answer over the response cap that breaks JSON-RPC, is a
// protocol violation, after those seen on the wire: padding a broken answer
// past the cap must not launder it. An oversize answer that ended is the
// error answer and code, or the result and isError, that the scan of the
// whole answer found, built by mcp-fuzz, never taken from the server's bytes.
func (o Outcome) Settled() Outcome {
	o.Violations = slices.Clone(o.Violations)
	if over := o.Oversize; over != nil {
		switch {
		case over.Malformed != "":
			o.Violations = append(o.Violations, fmt.Sprintf("an answer of %d bytes that breaks JSON-RPC: %s", over.Bytes, over.Malformed))
		case !over.Ended:
			o.Violations = append(o.Violations, fmt.Sprintf("an answer of over %d bytes that had not ended within the call timeout", over.Bytes))
		case over.IsErrorAnswer:
			o.RPCErr = &rpc.Error{Code: over.Code, Message: fmt.Sprintf("(an error answer of %d bytes, not read; it starts: %s)", over.Bytes, over.Head)}
		default:
			isError := over.IsError != nil && *over.IsError
			text, _ := json.Marshal(fmt.Sprintf("(an answer of %d bytes, not read; it starts: %s)", over.Bytes, over.Head))
			o.Result = fmt.Appendf(nil, `{"content":[{"type":"text","text":%s}],"isError":%t}`, text, isError)
		}
	} else if o.Unended() {
		o.Violations = append(o.Violations, fmt.Sprintf("an answer line that never ended: %d bytes without a newline within the call timeout", o.PendingLine))
	}
	return o
}

// judgeFailure handles the outcomes that are failures whatever the case.
func judgeFailure(o Outcome) (Judgement, bool) {
	switch {
	case len(o.Violations) > 0:
		return Judgement{Verdict: report.ProtocolViolation, Detail: strings.Join(o.Violations, "; ")}, true
	case o.Hung:
		return Judgement{Verdict: report.Hang, Detail: "no answer within the call timeout"}, true
	case o.Closed && o.Unsent && o.ExitStatus != "":
		return Judgement{Verdict: report.Crash, Crash: report.CrashExit, Detail: "the server had exited (" + o.ExitStatus + ") before this call was sent, on a freshly started server"}, true
	case o.Closed && o.Unsent:
		return Judgement{Verdict: report.Crash, Crash: report.CrashClosed, Detail: "the server had closed the connection before this call was sent, on a freshly started server"}, true
	case o.Closed && o.ExitStatus != "":
		return Judgement{Verdict: report.Crash, Crash: report.CrashExit, Detail: "server process exited (" + o.ExitStatus + ")"}, true
	case o.Closed:
		return Judgement{Verdict: report.Crash, Crash: report.CrashClosed, Detail: "connection closed before an answer"}, true
	}
	return Judgement{}, false
}

// judgeBad gives the verdict of a bad-input case (docs/BEHAVIOUR.md#the-oracle).
func judgeBad(structural, forbidden bool, o Outcome, redact func(string) string) Judgement {
	if j, ok := judgeFailure(o); ok {
		return j
	}
	if e := o.RPCErr; e != nil {
		detail := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, textcut.Excerpt(e.Message, 200))
		if structural {
			// A non-object arguments value is a malformed request: any
			// JSON-RPC error is a refusal, though -32602 is the right code.
			if e.Code != -32602 && e.Code != -32600 {
				detail += " (expected -32602)"
			}
			return Judgement{Verdict: report.Rejected, Detail: detail}
		}
		if Classify(e.Code) == ClassInternal {
			return Judgement{Verdict: report.Crash, Crash: report.CrashInternalError, Detail: detail}
		}
		return Judgement{Verdict: report.Rejected, Detail: detail}
	}
	r, err := ParseCallResult(o.Result)
	if err != nil {
		return Judgement{Verdict: report.ProtocolViolation, Detail: "not a CallToolResult: " + err.Error()}
	}
	j := Judgement{Result: &r}
	switch {
	case r.IsError:
		j.Verdict, j.Detail = report.Handled, "isError: "+redactedExcerpt(redact, r.Text, 200)
	case forbidden:
		j.Verdict, j.Detail = report.Accepted, "success on input the schema forbids"
	default:
		j.Verdict, j.Detail = report.Tolerated, "success on input the schema allows"
	}
	return j
}

// maxValidatedOutput is the largest structuredContent checked against an
// outputSchema.
const maxValidatedOutput = 64 << 10

// SyntheticHint follows the detail of a valid call that errored on
// generated input; a learned call that worked drops it from the first
// attempt's detail, where the advice no longer applies.
const SyntheticHint = " (may be a synthetic-input false positive: give a realistic example in the config file)"

// redactedExcerpt is at most n runes of the server's text on one line,
// redacted before the final cut, so that a secret straddling it is hidden
// whole rather than shown in part. Only twice n runes are redacted, not
// the whole text, which may be megabytes.
func redactedExcerpt(redact func(string) string, text string, n int) string {
	return textcut.Excerpt(redact(textcut.Excerpt(text, 2*n)), n)
}

// judgeValid gives the verdict of the valid case. validate checks
// structuredContent against the outputSchema (nil when none is declared).
func judgeValid(o Outcome, fromExample bool, validate func(json.RawMessage) error, redact func(string) string) Judgement {
	if j, ok := judgeFailure(o); ok {
		return j
	}
	synthetic := SyntheticHint
	if fromExample {
		synthetic = " (the input is your own example)"
	}
	if e := o.RPCErr; e != nil {
		detail := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, textcut.Excerpt(e.Message, 200))
		if Classify(e.Code) == ClassInternal {
			return Judgement{Verdict: report.Crash, Crash: report.CrashInternalError, Detail: detail}
		}
		return Judgement{Verdict: report.Errored, Detail: detail + synthetic}
	}
	r, err := ParseCallResult(o.Result)
	if err != nil {
		return Judgement{Verdict: report.ProtocolViolation, Detail: "not a CallToolResult: " + err.Error()}
	}
	j := Judgement{Result: &r}
	switch {
	case r.IsError:
		j.Verdict, j.Detail = report.Errored, "isError: "+redactedExcerpt(redact, r.Text, 200)+synthetic
	case validate != nil && !r.Structured:
		j.Verdict, j.Detail = report.OutputViolation, "outputSchema declared but structuredContent is missing"
	case validate != nil && len(r.StructRaw) > maxValidatedOutput:
		// A validator decodes the whole instance and may report an error per
		// element: millions of them for a hostile 4 MiB array.
		j.Verdict = report.OK
		j.Detail = fmt.Sprintf("structuredContent of %d bytes not checked against outputSchema (over %d)", len(r.StructRaw), maxValidatedOutput)
	case validate != nil:
		if err := validate(r.StructRaw); err != nil {
			j.Verdict, j.Detail = report.OutputViolation, "structuredContent does not match outputSchema: "+textcut.Excerpt(err.Error(), 200)
		} else {
			j.Verdict = report.OK
		}
	case r.Content == 0 && !r.Structured:
		j.Verdict, j.Detail = report.EmptySuccess, "success with no content and no structured content"
	default:
		j.Verdict = report.OK
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

// IsPanicLine recognises the first line runtimes print for an uncaught
// failure. The session applies it to each stderr line as it comes (a call's
// stderr is not kept: it may be a flood); a match during a call is the
// stderr_panic flag of its case.
func IsPanicLine(line string) bool {
	for _, p := range []string{"panic:", "fatal error:", "Traceback (most recent call last)", "Uncaught", "UnhandledPromiseRejection", "Unhandled exception", "thread 'main' panicked", "panicked at"} {
		if strings.Contains(line, p) {
			return true
		}
	}
	return false
}

// JoinDetail joins two parts of a detail with "; ", either of which may
// be empty.
func JoinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// JSON-RPC error codes of the 2026-07-28 revision: the oracle takes them
// for refusals of the request, not escaped exceptions.
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapabilities  = -32021
	CodeUnsupportedProtocolVersion = -32022
)
