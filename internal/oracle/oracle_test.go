package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The oracle's verdicts and flags, one row per case and answer, without a
// server process: the fixture-process tests check that the answers of a real
// server reach the oracle and that its judgement reaches the report.

const (
	okResult      = `{"content":[{"type":"text","text":"done"}]}`
	isErrorResult = `{"content":[{"type":"text","text":"bad q"}],"isError":true}`
	emptyResult   = `{"content":[]}`
	structResult  = `{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`
)

func rpcErr(code int64) Outcome {
	return Outcome{RPCErr: &rpc.Error{Code: code, Message: "m"}}
}

func result(raw string) Outcome { return Outcome{Result: json.RawMessage(raw)} }

func TestClassifyCode(t *testing.T) {
	for code, want := range map[int64]Class{
		-32700: ClassOther, -32600: ClassInvalidInput, -32601: ClassOther, -32602: ClassInvalidInput,
		-32603: ClassInternal, -32000: ClassInternal, -32050: ClassInternal, -32099: ClassInternal,
		-31999: ClassOther, -32100: ClassOther, 1: ClassOther, 0: ClassOther, -1: ClassOther, 404: ClassOther,
		-32020: ClassInvalidInput, -32021: ClassOther, -32022: ClassOther, -32019: ClassInternal, -32023: ClassInternal,
	} {
		if got := Classify(code); got != want {
			t.Errorf("classifyCode(%d) = %d, want %d", code, got, want)
		}
	}
}

// judgeRow is one case and answer, and what the oracle must make of them.
type judgeRow struct {
	name    string
	c       Case // the test fills in the leak detector and --max-response
	o       Outcome
	verdict report.Verdict
	crash   string
	flags   []string // exactly these, in this order
	detail  string   // a part of the detail
	code    *int64   // the error code recorded; by default the one of o.rpcErr
	noCode  bool     // no error code is recorded, whatever o.rpcErr
	size    int      // when not 0, the size recorded
	hidden  string   // when set, in neither the detail nor the response
}

// Case classes, as casegen makes them.
var (
	validCall      = Case{Kind: casegen.Valid}
	exampleCall    = Case{Kind: casegen.Valid, FromExample: true}
	structuralCall = Case{Kind: casegen.Structural, Forbidden: true, Args: json.RawMessage(`[]`)}
	missingCall    = Case{Kind: casegen.MissingRequired, Forbidden: true}
	wrongTypeCall  = Case{Kind: casegen.WrongType, Forbidden: true}
	enumCall       = Case{Kind: casegen.OutOfEnum, Forbidden: true}
	extraAllowed   = Case{Kind: casegen.ExtraProperty}
	oversizeAllow  = Case{Kind: casegen.Oversize}
)

// withSchema is c for a tool that declares an outputSchema: validate
// accepts or rejects structuredContent.
func withSchema(c Case, conforms bool) Case {
	c.Validate = func(json.RawMessage) error { return nil }
	if !conforms {
		c.Validate = func(json.RawMessage) error { return errors.New("sum: want integer") }
	}
	return c
}

func withArgs(c Case, args string) Case {
	c.Args = json.RawMessage(args)
	return c
}

func code(n int64) *int64 { return &n }

// The secret the table's run declares (the session has already replaced it
// with *** in what the server sent, and names it in outcome.secrets), a stack
// trace, and a secret-shaped token no one declared.
const (
	canary      = "canary-7f3a9c1e5b"
	nodeTrace   = "Error: boom\n    at handler (/srv/app/index.js:12:5)"
	githubToken = "ghp_0123456789abcdefghijABCDEFGHIJ0123456789"
)

// judgeRows is the oracle's table (docs/BEHAVIOUR.md#the-oracle): every JSON-RPC error code on
// every class of case, every shape of result, every failure, and each flag.
func judgeRows() []judgeRow {
	var rows []judgeRow
	// Every error code answering a tools/call, on every class of case. The
	// server-error range is -32000…-32099; other codes are the
	// application's own.
	for _, e := range []struct {
		code       int64
		bad, valid report.Verdict
	}{
		{-32700, report.Rejected, report.Errored},
		{-32600, report.Rejected, report.Errored},
		{-32601, report.Rejected, report.Errored},
		{-32602, report.Rejected, report.Errored},
		{-32603, report.Crash, report.Crash},
		{-32000, report.Crash, report.Crash},
		{-32001, report.Crash, report.Crash},
		{-32099, report.Crash, report.Crash},
		// The 2026-07-28 refusals: header mismatch (also a fuzzed argument
		// with no Mcp-Param header form), missing client capability,
		// unsupported version.
		{-32020, report.Rejected, report.Errored},
		{-32021, report.Rejected, report.Errored},
		{-32022, report.Rejected, report.Errored},
		{-31999, report.Rejected, report.Errored},
		{-32100, report.Rejected, report.Errored},
		{0, report.Rejected, report.Errored},
		{1, report.Rejected, report.Errored},
		{-1, report.Rejected, report.Errored},
		{42, report.Rejected, report.Errored},
		{4001, report.Rejected, report.Errored},
	} {
		name := "error " + jsonNumber(e.code)
		detail := "JSON-RPC error " + jsonNumber(e.code) + ": m"
		crash := ""
		if e.bad == report.Crash {
			crash = report.CrashInternalError
		}
		rows = append(rows,
			judgeRow{name: name + " on missing_required", c: missingCall, o: rpcErr(e.code), verdict: e.bad, crash: crash, detail: detail},
			judgeRow{name: name + " on an allowed input", c: extraAllowed, o: rpcErr(e.code), verdict: e.bad, crash: crash, detail: detail},
		)
		// A structural case is a malformed request: any JSON-RPC error is
		// a refusal, with a note unless the code is the right one.
		srow := judgeRow{name: name + " on structural", c: structuralCall, o: rpcErr(e.code), verdict: report.Rejected, detail: detail + " (expected -32602)"}
		if e.code == -32602 || e.code == -32600 {
			srow.detail, srow.hidden = detail, "expected"
		}
		rows = append(rows, srow,
			// {} is structural#empty_object, but an object: judged as the
			// same answer to a missing required property is.
			judgeRow{name: name + " on {}", c: Case{Kind: casegen.Structural, Forbidden: true, Args: json.RawMessage(`{}`)}, o: rpcErr(e.code), verdict: e.bad, crash: crash, detail: detail})
		vdetail, xdetail := detail, detail
		if e.valid == report.Errored {
			vdetail += " (may be a synthetic-input false positive"
			xdetail += " (the input is your own example)"
		}
		rows = append(rows,
			judgeRow{name: name + " on the valid call", c: validCall, o: rpcErr(e.code), verdict: e.valid, crash: crash, detail: vdetail},
			judgeRow{name: name + " on the user's example", c: exampleCall, o: rpcErr(e.code), verdict: e.valid, crash: crash, detail: xdetail},
		)
	}

	rows = append(rows,
		// Results of bad-input cases.
		judgeRow{name: "isError on missing_required", c: missingCall, o: result(isErrorResult), verdict: report.Handled, detail: "isError: bad q"},
		judgeRow{name: "isError on structural", c: structuralCall, o: result(isErrorResult), verdict: report.Handled},
		judgeRow{name: "isError on an allowed input", c: extraAllowed, o: result(isErrorResult), verdict: report.Handled},
		judgeRow{name: "success on wrong_type", c: wrongTypeCall, o: result(okResult), verdict: report.Accepted, detail: "success on input the schema forbids"},
		judgeRow{name: "success on out_of_enum", c: enumCall, o: result(structResult), verdict: report.Accepted},
		judgeRow{name: "success on structural", c: structuralCall, o: result(okResult), verdict: report.Accepted},
		judgeRow{name: "empty success on missing_required", c: missingCall, o: result(emptyResult), verdict: report.Accepted},
		judgeRow{name: "success on an allowed extra property", c: extraAllowed, o: result(okResult), verdict: report.Tolerated, detail: "success on input the schema allows"},
		judgeRow{name: "success on an allowed oversize value", c: oversizeAllow, o: result(okResult), verdict: report.Tolerated},
		judgeRow{name: "isError false on a forbidden input", c: missingCall, o: result(`{"content":[],"isError":false}`), verdict: report.Accepted},
		judgeRow{name: "isError null on a forbidden input", c: missingCall, o: result(`{"content":[],"isError":null}`), verdict: report.Accepted},

		// The valid call.
		judgeRow{name: "valid ok", c: validCall, o: result(okResult), verdict: report.OK, size: len("done\n")},
		judgeRow{name: "valid empty success", c: validCall, o: result(emptyResult), verdict: report.EmptySuccess, detail: "no content and no structured content"},
		judgeRow{name: "valid with only structuredContent", c: validCall, o: result(`{"content":[],"structuredContent":{"a":1}}`), verdict: report.OK},
		judgeRow{name: "valid isError", c: validCall, o: result(isErrorResult), verdict: report.Errored, detail: "isError: bad q (may be a synthetic-input false positive"},
		judgeRow{name: "valid isError on the user's example", c: exampleCall, o: result(isErrorResult), verdict: report.Errored, detail: "(the input is your own example)"},
		judgeRow{name: "structuredContent without outputSchema", c: validCall, o: result(structResult), verdict: report.OK},
		judgeRow{name: "outputSchema, conforming", c: withSchema(validCall, true), o: result(structResult), verdict: report.OK},
		judgeRow{name: "outputSchema, violating", c: withSchema(validCall, false), o: result(structResult), verdict: report.OutputViolation, detail: "structuredContent does not match outputSchema: sum: want integer"},
		judgeRow{name: "outputSchema, structuredContent missing", c: withSchema(validCall, true), o: result(okResult), verdict: report.OutputViolation, detail: "outputSchema declared but structuredContent is missing"},
		judgeRow{name: "outputSchema, structuredContent null", c: withSchema(validCall, true), o: result(`{"content":[],"structuredContent":null}`), verdict: report.OutputViolation, detail: "missing"},
		judgeRow{name: "outputSchema, isError", c: withSchema(validCall, true), o: result(isErrorResult), verdict: report.Errored},
		judgeRow{name: "outputSchema is no concern of a bad input", c: withSchema(missingCall, false), o: result(structResult), verdict: report.Accepted},

		// Results that are not a CallToolResult.
		judgeRow{name: "result a string", c: missingCall, o: result(`"x"`), verdict: report.ProtocolViolation, detail: "not a CallToolResult: result is not an object"},
		judgeRow{name: "result an array", c: validCall, o: result(`[]`), verdict: report.ProtocolViolation, detail: "result is not an object"},
		judgeRow{name: "result null", c: structuralCall, o: result(`null`), verdict: report.ProtocolViolation, detail: "result is not an object"},
		judgeRow{name: "no content", c: missingCall, o: result(`{}`), verdict: report.ProtocolViolation, detail: "result has no content array"},
		judgeRow{name: "no content on the valid call", c: validCall, o: result(`{"structuredContent":{}}`), verdict: report.ProtocolViolation, detail: "no content array"},
		judgeRow{name: "content an object", c: missingCall, o: result(`{"content":{}}`), verdict: report.ProtocolViolation, detail: "content is not an array of objects"},
		judgeRow{name: "content of numbers", c: validCall, o: result(`{"content":[1]}`), verdict: report.ProtocolViolation, detail: "content is not an array of objects"},
		judgeRow{name: "block without type", c: missingCall, o: result(`{"content":[{}]}`), verdict: report.ProtocolViolation, detail: "content[0] has no string type"},
		judgeRow{name: "text block without text", c: validCall, o: result(`{"content":[{"type":"text"}]}`), verdict: report.ProtocolViolation, detail: "without a string text"},
		judgeRow{name: "isError a string", c: missingCall, o: result(`{"content":[],"isError":"yes"}`), verdict: report.ProtocolViolation, detail: "isError is not a boolean"},
		judgeRow{name: "isError a string on the valid call", c: validCall, o: result(`{"content":[],"isError":"yes"}`), verdict: report.ProtocolViolation, detail: "isError is not a boolean"},

		// No answer.
		judgeRow{name: "hang", c: missingCall, o: Outcome{Hung: true}, verdict: report.Hang, detail: "no answer within the call timeout"},
		judgeRow{name: "hang on the valid call", c: validCall, o: Outcome{Hung: true}, verdict: report.Hang},
		judgeRow{name: "hang on structural", c: structuralCall, o: Outcome{Hung: true}, verdict: report.Hang},
		judgeRow{name: "closed", c: missingCall, o: Outcome{Closed: true}, verdict: report.Crash, crash: report.CrashClosed, detail: "connection closed before an answer"},
		judgeRow{name: "closed on structural", c: structuralCall, o: Outcome{Closed: true}, verdict: report.Crash, crash: report.CrashClosed},
		judgeRow{name: "exit", c: missingCall, o: Outcome{Closed: true, ExitStatus: "exit code 2"}, verdict: report.Crash, crash: report.CrashExit, detail: "server process exited (exit code 2)"},
		judgeRow{name: "exited before it was sent", c: missingCall, o: Outcome{Closed: true, Unsent: true, ExitStatus: "exit code 3"}, verdict: report.Crash, crash: report.CrashExit, detail: "the server had exited (exit code 3) before this call was sent"},
		judgeRow{name: "closed before it was sent", c: validCall, o: Outcome{Closed: true, Unsent: true}, verdict: report.Crash, crash: report.CrashClosed, detail: "the server had closed the connection before this call was sent"},
		judgeRow{name: "exit on the valid call", c: validCall, o: Outcome{Closed: true, ExitStatus: "signal SIGSEGV"}, verdict: report.Crash, crash: report.CrashExit, detail: "SIGSEGV"},
		judgeRow{name: "an answer line that never ended", c: missingCall, o: Outcome{Hung: true, PendingLine: 17}, verdict: report.ProtocolViolation, detail: "an answer line that never ended: 17 bytes without a newline"},
		judgeRow{name: "the run was cancelled", c: missingCall, o: Outcome{Cancelled: true, StderrPanic: true, RPCErr: &rpc.Error{Code: -32603}}, verdict: report.NotRun, detail: "run cancelled", noCode: true},

		// Protocol violations during the call outrank the answer.
		judgeRow{name: "violation with a result", c: missingCall, o: Outcome{Result: json.RawMessage(okResult), Violations: []string{"garbage on stdout"}}, verdict: report.ProtocolViolation, detail: "garbage on stdout"},
		judgeRow{name: "violation with an error", c: structuralCall, o: Outcome{RPCErr: &rpc.Error{Code: -32602}, Violations: []string{"garbage"}}, verdict: report.ProtocolViolation, detail: "garbage"},
		judgeRow{name: "violations cut the call short", c: validCall, o: Outcome{CutShort: true, Violations: []string{"a", "b", "and 3 more"}}, verdict: report.ProtocolViolation, detail: "a; b; and 3 more"},
		judgeRow{name: "violation then exit", c: missingCall, o: Outcome{Closed: true, ExitStatus: "exit code 1", Violations: []string{"garbage"}}, verdict: report.ProtocolViolation},
		judgeRow{name: "violation then an unended line", c: missingCall, o: Outcome{Hung: true, PendingLine: 5, Violations: []string{"garbage"}}, verdict: report.ProtocolViolation, detail: "garbage; an answer line that never ended: 5 bytes"},

		// Answers over the response cap: bloated whatever the verdict, judged
		// on what the scan of the whole answer found.
		judgeRow{name: "oversize success on a forbidden input", c: missingCall, o: oversized(true, nil, ""), verdict: report.Accepted, flags: []string{report.FlagBloated}, detail: "bloated: an answer of 5000000 bytes, over --max-response 4096; the rest was counted, not read; success on input the schema forbids", size: 5000000},
		judgeRow{name: "oversize success on an allowed input", c: oversizeAllow, o: oversized(true, nil, ""), verdict: report.Tolerated, flags: []string{report.FlagBloated}},
		judgeRow{name: "oversize isError", c: missingCall, o: oversized(true, new(true), ""), verdict: report.Handled, flags: []string{report.FlagBloated}, detail: "isError: (an answer of 5000000 bytes, not read; it starts: {\"jsonrpc\""},
		judgeRow{name: "oversize -32602", c: missingCall, o: oversizedError(-32602), verdict: report.Rejected, flags: []string{report.FlagBloated}, detail: "JSON-RPC error -32602: (an error answer of 5000000 bytes", code: code(-32602)},
		judgeRow{name: "oversize -32603", c: missingCall, o: oversizedError(-32603), verdict: report.Crash, crash: report.CrashInternalError, flags: []string{report.FlagBloated}, code: code(-32603)},
		judgeRow{name: "oversize valid success", c: validCall, o: oversized(true, nil, ""), verdict: report.OK, flags: []string{report.FlagBloated}},
		// Its structuredContent was not read: not missing.
		judgeRow{name: "oversize valid success with an outputSchema", c: withSchema(validCall, false), o: oversized(true, nil, ""), verdict: report.OK, flags: []string{report.FlagBloated}},
		judgeRow{name: "oversize and malformed", c: missingCall, o: oversized(true, nil, "no jsonrpc member"), verdict: report.ProtocolViolation, flags: []string{report.FlagBloated}, detail: "an answer of 5000000 bytes that breaks JSON-RPC: no jsonrpc member"},
		judgeRow{name: "oversize, malformed, after wire violations", c: validCall, o: withViolations(oversized(false, nil, "no jsonrpc member"), "garbage"), verdict: report.ProtocolViolation, flags: []string{report.FlagBloated}, detail: "garbage; an answer of 5000000 bytes that breaks JSON-RPC"},
		judgeRow{name: "oversize and unended", c: missingCall, o: oversized(false, nil, ""), verdict: report.ProtocolViolation, flags: []string{report.FlagBloated}, detail: "an answer of over 5000000 bytes that had not ended within the call timeout"},

		// Leaks: in an error, in a result, but not an echo of the arguments.
		judgeRow{name: "stack trace in an error message", c: missingCall, o: Outcome{RPCErr: &rpc.Error{Code: -32602, Message: nodeTrace}}, verdict: report.Rejected, flags: []string{report.FlagLeak}, detail: "; leak: Node stack frame"},
		judgeRow{name: "stack trace in error data", c: missingCall, o: Outcome{RPCErr: &rpc.Error{Code: 1, Message: "m", Data: json.RawMessage(`{"trace":"Traceback (most recent call last):"}`)}}, verdict: report.Rejected, flags: []string{report.FlagLeak}, detail: "leak: Python traceback"},
		judgeRow{name: "stack trace in an internal error", c: missingCall, o: Outcome{RPCErr: &rpc.Error{Code: -32603, Message: nodeTrace}}, verdict: report.Crash, crash: report.CrashInternalError, flags: []string{report.FlagLeak}, detail: "leak: Node stack frame"},
		judgeRow{name: "stack trace in an isError result", c: missingCall, o: result(`{"content":[{"type":"text","text":"Traceback (most recent call last):\n  File \"/app/x.py\", line 3"}],"isError":true}`), verdict: report.Handled, flags: []string{report.FlagLeak}, detail: "leak: Python traceback"},
		judgeRow{name: "stack trace in structuredContent", c: validCall, o: result(`{"content":[],"structuredContent":{"e":"goroutine 1 [running]:"}}`), verdict: report.OK, flags: []string{report.FlagLeak}, detail: "leak: Go panic"},
		// No "; " before the leak when the verdict says nothing.
		judgeRow{name: "stack trace in an ok result", c: validCall, o: result(`{"content":[{"type":"text","text":"at handler (/srv/app/index.js:12:5)"}]}`), verdict: report.OK, flags: []string{report.FlagLeak}, detail: "leak: Node stack frame"},
		judgeRow{name: "secret value in a result", c: validCall, o: Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"token ***"}]}`), Secrets: []string{"--env API_TOKEN"}}, verdict: report.OK, flags: []string{report.FlagLeak}, detail: "leak: value of --env API_TOKEN"},
		judgeRow{name: "secret value in an error", c: missingCall, o: Outcome{RPCErr: &rpc.Error{Code: -32602, Message: "bad token ***"}, Secrets: []string{"--env API_TOKEN"}}, verdict: report.Rejected, flags: []string{report.FlagLeak}, detail: "leak: value of --env API_TOKEN"},
		judgeRow{name: "secret value in a violation", c: missingCall, o: Outcome{Violations: []string{"garbage: ***"}, Secrets: []string{"--env API_TOKEN"}}, verdict: report.ProtocolViolation, flags: []string{report.FlagLeak}, detail: "garbage: ***; leak: value of --env API_TOKEN"},
		judgeRow{name: "secret token in an isError result", c: missingCall, o: result(`{"content":[{"type":"text","text":"token ` + githubToken + `"}],"isError":true}`), verdict: report.Handled, flags: []string{report.FlagLeak}, detail: "isError: token ***; leak: GitHub token", hidden: githubToken},
		judgeRow{name: "echo of a user example's secret", c: withArgs(exampleCall, `{"q":"`+canary+`"}`), o: Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"you said ***"}]}`), Secrets: []string{"--env API_TOKEN"}}, verdict: report.OK},
		judgeRow{name: "echo of a probe string", c: withArgs(missingCall, `{"q":"at handler (/srv/app/index.js:12:5)"}`), o: result(`{"content":[{"type":"text","text":"no such item: at handler (/srv/app/index.js:12:5)"}],"isError":true}`), verdict: report.Handled},
		judgeRow{name: "echo of a JSON-escaped argument", c: withArgs(missingCall, `{"q":"x\nat handler (/srv/app/index.js:12:5)"}`), o: Outcome{RPCErr: &rpc.Error{Code: -32602, Message: "bad q: x\nat handler (/srv/app/index.js:12:5)"}}, verdict: report.Rejected},
		judgeRow{name: "a leak besides an echo", c: withArgs(missingCall, `{"q":"at handler (/srv/app/index.js:12:5)"}`), o: Outcome{RPCErr: &rpc.Error{Code: -32602, Message: "bad q\nTraceback (most recent call last):"}}, verdict: report.Rejected, flags: []string{report.FlagLeak}, detail: "leak: Python traceback"},
		judgeRow{name: "stack trace at the head of an oversize answer", c: missingCall, o: oversizedHead(nodeTrace), verdict: report.Accepted, flags: []string{report.FlagBloated, report.FlagLeak}, detail: "leak: Node stack frame"},

		// Panic text on stderr during the call, whatever the verdict.
		judgeRow{name: "stderr panic on a handled case", c: missingCall, o: Outcome{Result: json.RawMessage(isErrorResult), StderrPanic: true}, verdict: report.Handled, flags: []string{report.FlagStderrPanic}},
		judgeRow{name: "stderr panic on the valid call", c: validCall, o: Outcome{Result: json.RawMessage(okResult), StderrPanic: true}, verdict: report.OK, flags: []string{report.FlagStderrPanic}},
		judgeRow{name: "stderr panic then exit", c: missingCall, o: Outcome{Closed: true, ExitStatus: "exit code 2", StderrPanic: true}, verdict: report.Crash, crash: report.CrashExit, flags: []string{report.FlagStderrPanic}},
		judgeRow{name: "every flag", c: missingCall, o: func() Outcome { o := oversizedHead(nodeTrace); o.StderrPanic = true; return o }(), verdict: report.Accepted, flags: []string{report.FlagBloated, report.FlagLeak, report.FlagStderrPanic}},
	)
	return rows
}

// oversized is an answer of 5,000,000 bytes over a 4096-byte cap, seen
// whole (ended) or not, with the isError the scan found and what broke
// JSON-RPC, if anything.
func oversized(ended bool, isError *bool, malformed string) Outcome {
	return Outcome{Oversize: &rpc.Oversize{Bytes: 5000000, Ended: ended, IsError: isError, Malformed: malformed, Head: `{"jsonrpc":"2.0","id":2,"result":{"content":[`}}
}

func oversizedError(code int64) Outcome {
	return Outcome{Oversize: &rpc.Oversize{Bytes: 5000000, Ended: true, IsErrorAnswer: true, Code: code, Head: `{"jsonrpc":"2.0","id":2,"error":{"code":`}}
}

func oversizedHead(head string) Outcome {
	o := oversized(true, nil, "")
	o.Oversize.Head = head
	return o
}

func withViolations(o Outcome, v ...string) Outcome {
	o.Violations = v
	return o
}

// TestJudge runs the oracle's table: each row's verdict, crash, flags, error
// code and detail.
func TestJudge(t *testing.T) {
	det := leak.NewDetector(map[string]string{"--env API_TOKEN": canary})
	for _, r := range judgeRows() {
		c := r.c
		c.Leak, c.MaxResponse = det, 4096
		if c.Args == nil {
			c.Args = json.RawMessage(`{"q":"x"}`)
		}
		j := Judge(c, r.o)
		var problems []string
		if j.Verdict != r.verdict || j.Crash != r.crash {
			problems = append(problems, fmt.Sprintf("verdict %s (crash %q), want %s (crash %q)", j.Verdict, j.Crash, r.verdict, r.crash))
		}
		if !slices.Equal(j.Flags, r.flags) {
			problems = append(problems, fmt.Sprintf("flags %q, want %q", j.Flags, r.flags))
		}
		if !strings.Contains(j.Detail, r.detail) {
			problems = append(problems, fmt.Sprintf("detail %q, want it to contain %q", j.Detail, r.detail))
		}
		wantCode := r.code
		if wantCode == nil && r.o.RPCErr != nil {
			wantCode = &r.o.RPCErr.Code
		}
		if r.noCode {
			wantCode = nil
		}
		if (j.ErrorCode == nil) != (wantCode == nil) || j.ErrorCode != nil && *j.ErrorCode != *wantCode {
			problems = append(problems, fmt.Sprintf("error code %v, want %v", deref(j.ErrorCode), deref(wantCode)))
		}
		if r.size != 0 && j.Size != r.size {
			problems = append(problems, fmt.Sprintf("size %d, want %d", j.Size, r.size))
		}
		if r.hidden != "" && (strings.Contains(j.Detail, r.hidden) || strings.Contains(j.Response, r.hidden)) {
			problems = append(problems, fmt.Sprintf("%q shown in %q / %q", r.hidden, j.Detail, j.Response))
		}
		if len(problems) > 0 {
			t.Errorf("%s: %s", r.name, strings.Join(problems, "; "))
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// The lines of stderr that make the stderr_panic flag: the first line each
// runtime prints for an uncaught failure, and not ordinary logging.
func TestIsPanicLine(t *testing.T) {
	for line, want := range map[string]bool{
		"panic: runtime error: index out of range [1] with length 1":  true,
		"fatal error: concurrent map writes":                          true,
		"Traceback (most recent call last):":                          true,
		"Uncaught TypeError: x is undefined":                          true,
		"[UnhandledPromiseRejection: This error originated either by": true,
		"Unhandled exception. System.NullReferenceException":          true,
		"thread 'main' panicked at src/main.rs:2:5:":                  true,
		"thread 'tokio-1' panicked at src/lib.rs:9:1:":                true,
		"listening on stdio":                                          false,
		"error: city is required":                                     false,
		"WARN no panic, just a warning":                               false,
		"":                                                            false,
	} {
		if got := IsPanicLine(line); got != want {
			t.Errorf("isPanicLine(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestParseCallResult(t *testing.T) {
	r, err := ParseCallResult(json.RawMessage(`{"content":[{"type":"text","text":"héllo"},{"type":"image","data":"x","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || r.Content != 2 || !r.Structured || r.Text != "héllo\n" || r.Size != len([]rune("héllo\n"))+len(`{"a":1}`) {
		t.Errorf("parsed %+v", r)
	}
	if r, err := ParseCallResult(json.RawMessage(`{"content":[],"isError":null}`)); err != nil || r.IsError {
		t.Errorf("isError null: %+v, %v", r, err)
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestJoinDetail(t *testing.T) {
	for _, tc := range [][3]string{{"", "b", "b"}, {"a", "", "a"}, {"a", "b", "a; b"}, {"", "", ""}} {
		if got := JoinDetail(tc[0], tc[1]); got != tc[2] {
			t.Errorf("JoinDetail(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
