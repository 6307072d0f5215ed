package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The oracle's verdicts, one row per answer, without a server process: the
// fixture-process tests stay as end-to-end checks of the same table.

const (
	okResult      = `{"content":[{"type":"text","text":"done"}]}`
	isErrorResult = `{"content":[{"type":"text","text":"bad q"}],"isError":true}`
	emptyResult   = `{"content":[]}`
	structResult  = `{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`
)

func rpcErr(code int64) outcome {
	return outcome{rpcErr: &rpc.Error{Code: code, Message: "m"}}
}

func result(raw string) outcome { return outcome{result: json.RawMessage(raw)} }

func TestClassifyCode(t *testing.T) {
	for code, want := range map[int64]codeClass{
		-32700: codeOther, -32600: codeInvalidInput, -32601: codeOther, -32602: codeInvalidInput,
		-32603: codeInternal, -32000: codeInternal, -32050: codeInternal, -32099: codeInternal,
		-31999: codeOther, -32100: codeOther, 1: codeOther, 0: codeOther, -1: codeOther, 404: codeOther,
	} {
		if got := classifyCode(code); got != want {
			t.Errorf("classifyCode(%d) = %d, want %d", code, got, want)
		}
	}
}

func TestJudgeBad(t *testing.T) {
	type row struct {
		name                  string
		structural, forbidden bool
		o                     outcome
		verdict               report.Verdict
		crash                 string
		detail                string // a part of the detail
	}
	var rows []row
	// Every error code, on an ordinary bad-input case.
	for code, v := range map[int64]report.Verdict{
		-32700: report.Rejected, -32600: report.Rejected, -32601: report.Rejected, -32602: report.Rejected,
		-32603: report.Crash, -32000: report.Crash, -32099: report.Crash,
		-31999: report.Rejected, -32100: report.Rejected, 1: report.Rejected, -1: report.Rejected,
	} {
		r := row{name: "code", forbidden: true, o: rpcErr(code), verdict: v, detail: "JSON-RPC error"}
		if v == report.Crash {
			r.crash = report.CrashInternalError
		}
		rows = append(rows, r)
	}
	// Structural cases: any JSON-RPC error is a refusal, -32603 included,
	// with a note unless the code is the right one.
	for code, note := range map[int64]bool{-32602: false, -32600: false, -32603: true, -32700: true, -32601: true, 1: true} {
		d := "JSON-RPC error"
		if note {
			d = "(expected -32602)"
		}
		rows = append(rows, row{name: "structural", structural: true, forbidden: true, o: rpcErr(code), verdict: report.Rejected, detail: d})
	}
	rows = append(rows,
		row{name: "isError", forbidden: true, o: result(isErrorResult), verdict: report.Handled, detail: "isError: bad q"},
		row{name: "success forbidden", forbidden: true, o: result(okResult), verdict: report.Accepted},
		row{name: "success allowed", o: result(okResult), verdict: report.Tolerated},
		row{name: "empty success forbidden", forbidden: true, o: result(emptyResult), verdict: report.Accepted},
		row{name: "result not an object", forbidden: true, o: result(`"x"`), verdict: report.ProtocolViolation, detail: "not an object"},
		row{name: "no content", forbidden: true, o: result(`{}`), verdict: report.ProtocolViolation, detail: "no content"},
		row{name: "content not a list", forbidden: true, o: result(`{"content":{}}`), verdict: report.ProtocolViolation, detail: "content is not an array"},
		row{name: "block without type", forbidden: true, o: result(`{"content":[{}]}`), verdict: report.ProtocolViolation, detail: "no string type"},
		row{name: "text block without text", forbidden: true, o: result(`{"content":[{"type":"text"}]}`), verdict: report.ProtocolViolation, detail: "without a string text"},
		row{name: "isError not boolean", forbidden: true, o: result(`{"content":[],"isError":"yes"}`), verdict: report.ProtocolViolation, detail: "isError is not a boolean"},
		row{name: "hang", forbidden: true, o: outcome{hung: true}, verdict: report.Hang},
		row{name: "exit", forbidden: true, o: outcome{closed: true, exitStatus: "exit code 2"}, verdict: report.Crash, crash: report.CrashExit, detail: "exit code 2"},
		row{name: "closed", forbidden: true, o: outcome{closed: true}, verdict: report.Crash, crash: report.CrashClosed},
		// A violation outranks the answer that came with it.
		row{name: "violation with an answer", forbidden: true, o: outcome{result: json.RawMessage(okResult), violations: []string{"garbage"}}, verdict: report.ProtocolViolation, detail: "garbage"},
		row{name: "violation with an error", structural: true, o: outcome{rpcErr: &rpc.Error{Code: -32602}, violations: []string{"garbage"}}, verdict: report.ProtocolViolation},
	)
	for _, r := range rows {
		j := judgeBad(r.structural, r.forbidden, r.o)
		if j.verdict != r.verdict || j.crash != r.crash || !strings.Contains(j.detail, r.detail) {
			code := ""
			if r.o.rpcErr != nil {
				code = " code " + jsonNumber(r.o.rpcErr.Code)
			}
			t.Errorf("%s%s: verdict %s (crash %q, %q), want %s (crash %q, detail with %q)", r.name, code, j.verdict, j.crash, j.detail, r.verdict, r.crash, r.detail)
		}
	}
}

func TestJudgeValid(t *testing.T) {
	valid := func(json.RawMessage) error { return nil }
	invalid := func(json.RawMessage) error { return errors.New("sum: want integer") }
	for _, r := range []struct {
		name        string
		o           outcome
		fromExample bool
		validate    func(json.RawMessage) error
		verdict     report.Verdict
		detail      string
	}{
		{"ok", result(okResult), false, nil, report.OK, ""},
		{"empty success", result(emptyResult), false, nil, report.EmptySuccess, "no content"},
		{"isError synthetic", result(isErrorResult), false, nil, report.Errored, "synthetic-input"},
		{"isError from example", result(isErrorResult), true, nil, report.Errored, "your own example"},
		{"-32602 synthetic", rpcErr(-32602), false, nil, report.Errored, "synthetic-input"},
		{"-32601", rpcErr(-32601), false, nil, report.Errored, "JSON-RPC error -32601"},
		{"-32700", rpcErr(-32700), false, nil, report.Errored, "JSON-RPC error -32700"},
		{"-32600", rpcErr(-32600), false, nil, report.Errored, "JSON-RPC error -32600"},
		{"application code", rpcErr(4001), false, nil, report.Errored, "4001"},
		{"-32603", rpcErr(-32603), false, nil, report.Crash, "JSON-RPC error -32603"},
		{"-32000", rpcErr(-32000), false, nil, report.Crash, ""},
		{"outputSchema, structured and valid", result(structResult), false, valid, report.OK, ""},
		{"outputSchema, structured but invalid", result(structResult), false, invalid, report.OutputViolation, "want integer"},
		{"outputSchema, nothing structured", result(okResult), false, valid, report.OutputViolation, "missing"},
		{"structured without outputSchema", result(structResult), false, nil, report.OK, ""},
		{"only structured content", result(`{"content":[],"structuredContent":{"a":1}}`), false, nil, report.OK, ""},
		{"malformed result", result(`[]`), false, nil, report.ProtocolViolation, "not an object"},
		{"hang", outcome{hung: true}, false, nil, report.Hang, ""},
		{"exit", outcome{closed: true, exitStatus: "signal SIGSEGV"}, false, nil, report.Crash, "SIGSEGV"},
	} {
		j := judgeValid(r.o, r.fromExample, r.validate)
		if j.verdict != r.verdict || !strings.Contains(j.detail, r.detail) {
			t.Errorf("%s: verdict %s (%q), want %s (detail with %q)", r.name, j.verdict, j.detail, r.verdict, r.detail)
		}
	}
}

func TestParseCallResult(t *testing.T) {
	r, err := parseCallResult(json.RawMessage(`{"content":[{"type":"text","text":"héllo"},{"type":"image","data":"x","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || r.Content != 2 || !r.Structured || r.Text != "héllo\n" || r.Size != len([]rune("héllo\n"))+len(`{"a":1}`) {
		t.Errorf("parsed %+v", r)
	}
	if r, err := parseCallResult(json.RawMessage(`{"content":[],"isError":null}`)); err != nil || r.IsError {
		t.Errorf("isError null: %+v, %v", r, err)
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
