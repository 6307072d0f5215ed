package protocheck

import (
	"encoding/json"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestJudgeCheck: every kind of answer to a check's request.
func TestJudgeCheck(t *testing.T) {
	any := Expectation{}
	vers := Expectation{Codes: []int64{oracle.CodeUnsupportedProtocolVersion}, Supported: true, Legacy: []int64{-32004}}
	result := func(raw string) oracle.Outcome { return oracle.Outcome{Result: json.RawMessage(raw)} }
	rpcErr := func(code int64, data string) oracle.Outcome {
		return oracle.Outcome{RPCErr: &rpc.Error{Code: code, Message: "m", Data: json.RawMessage(data)}}
	}
	for _, tc := range []struct {
		name         string
		e            Expectation
		o            oracle.Outcome
		h            HTTPAnswer
		status, code string
	}{
		{"any error passes", any, rpcErr(-32602, ""), HTTPAnswer{}, report.CheckPass, ""},
		{"named code", vers, rpcErr(-32022, `{"supported":["2026-07-28"]}`), HTTPAnswer{}, report.CheckPass, ""},
		{"named code without data.supported", vers, rpcErr(-32022, ""), HTTPAnswer{}, report.CheckFail, report.CodeWrongErrorCode},
		{"another code", vers, rpcErr(-32602, ""), HTTPAnswer{}, report.CheckFail, report.CodeWrongErrorCode},
		{"pre-final code", vers, rpcErr(-32004, ""), HTTPAnswer{}, report.CheckFail, report.CodeLegacyErrorCode},
		{"served", any, result(`{"tools":[]}`), HTTPAnswer{}, report.CheckFail, report.CodeEnvelopeIgnored},
		{"served, own code", Expectation{Served: report.CodeRemovedMethodServed}, result(`{}`), HTTPAnswer{}, report.CheckFail, report.CodeRemovedMethodServed},
		{"served and allowed", Expectation{ServedOK: func(json.RawMessage) bool { return true }}, result(`{}`), HTTPAnswer{}, report.CheckPass, ""},
		{"oversize answer", any, oracle.Outcome{Oversize: &rpc.Oversize{Bytes: 9 << 20, Ended: true}}, HTTPAnswer{}, report.CheckFail, report.CodeEnvelopeIgnored},
		{"oversize answer that never ends", any, oracle.Outcome{Oversize: &rpc.Oversize{Bytes: 9 << 20}}, HTTPAnswer{}, report.CheckFail, string(report.Hang)},
		{"exit", any, oracle.Outcome{Closed: true, ExitStatus: "exit code 3"}, HTTPAnswer{}, report.CheckFail, string(report.Crash)},
		{"dropped connection", any, oracle.Outcome{Closed: true}, HTTPAnswer{}, report.CheckFail, string(report.Crash)},
		{"no answer", any, oracle.Outcome{Hung: true}, HTTPAnswer{}, report.CheckFail, string(report.Hang)},
		{"garbage", any, oracle.Outcome{Violations: []string{"non jsonrpc line"}}, HTTPAnswer{}, report.CheckFail, string(report.ProtocolViolation)},
		{"HTTP 400 without JSON-RPC, any refusal", any, oracle.Outcome{Closed: true}, HTTPAnswer{400, "text/plain"}, report.CheckPass, ""},
		{"HTTP 400 without JSON-RPC, a named code", vers, oracle.Outcome{Closed: true}, HTTPAnswer{400, "text/plain"}, report.CheckFail, report.CodeWrongErrorCode},
		{"HTTP 200 page", any, oracle.Outcome{Closed: true}, HTTPAnswer{200, "text/html"}, report.CheckFail, report.CodeWrongErrorCode},
		{"HTTP 204", any, oracle.Outcome{Closed: true}, HTTPAnswer{204, ""}, report.CheckFail, report.CodeWrongErrorCode},
		{"HTTP 307 elsewhere", any, oracle.Outcome{Closed: true}, HTTPAnswer{307, ""}, report.CheckFail, report.CodeWrongErrorCode},
		{"interrupted", any, oracle.Outcome{Cancelled: true}, HTTPAnswer{}, report.CheckSkip, ""},
	} {
		var c report.Check
		Judge(tc.e, tc.o, tc.h, &c)
		if c.Status != tc.status || c.Code != tc.code {
			t.Errorf("%s: %s %s (%s), want %s %s", tc.name, c.Status, c.Code, c.Detail, tc.status, tc.code)
		}
	}
}

// A -32022 refusal names the versions the server speaks only with a
// supported list holding at least one string.
func TestHasSupported(t *testing.T) {
	for data, want := range map[string]bool{
		`{"supported":["2026-07-28"]}`: true,
		`{"supported":[""]}`:           true,
		`{"supported":[]}`:             false,
		`{"supported":[1,{}]}`:         false,
		`{"supported":[null]}`:         true, // decodes as a string, as discovery reads it
		`{"supported":"2026-07-28"}`:   false,
		``:                             false,
	} {
		if got := hasSupported(json.RawMessage(data)); got != want {
			t.Errorf("hasSupported(%s) = %v, want %v", data, got, want)
		}
	}
}
