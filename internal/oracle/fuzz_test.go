package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// badVerdicts and validVerdicts are the verdicts the oracle may give a
// bad-input case and the valid case from an answer (not a failure).
var (
	badVerdicts   = map[report.Verdict]bool{report.Handled: true, report.Rejected: true, report.Accepted: true, report.Tolerated: true, report.Crash: true, report.ProtocolViolation: true}
	validVerdicts = map[report.Verdict]bool{report.OK: true, report.EmptySuccess: true, report.OutputViolation: true, report.Errored: true, report.Crash: true, report.ProtocolViolation: true}
)

// FuzzCallResult judges arbitrary tools/call answers: a result (raw) and a
// JSON-RPC error (code, message). parseCallResult never panics and what it
// accepts is consistent; the verdicts come from the allowed sets and follow
// the oracle's rules (isError is handled, not a CallToolResult is a protocol
// violation, internal error codes are crashes); details are one bounded line.
func FuzzCallResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"Sunny"}]}`,
		`{"content":[{"type":"text","text":"city must be a string"}],"isError":true}`,
		`{"content":[],"structuredContent":{"temp":21}}`,
		`{"content":[]}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"a\nb\u202e"}],"isError":null,"structuredContent":null}`,
		`{"content":[{"type":"text"}]}`,
		`{"content":[{"text":"no type"}]}`,
		`{"content":{"type":"text"}}`,
		`{"content":[1]}`,
		`{"isError":"yes","content":[]}`,
		`{"isError":false}`,
		`{"content":[{"type":"text","text":"` + strings.Repeat("word ", 100) + `"}],"structuredContent":[1,2,3]}`,
		`[]`, `null`, `"text"`, `not json`,
	} {
		f.Add([]byte(s), int64(0), "", false, false)
	}
	f.Add([]byte(nil), int64(-32602), "invalid params: city", true, false)
	f.Add([]byte(nil), int64(-32603), "TypeError: x is undefined\n    at f (/app/x.js:1:2)", true, true)
	f.Add([]byte(nil), int64(-32050), "\x1b[31mserver error", false, false)
	f.Add([]byte(nil), int64(-32601), "", false, true)
	f.Add([]byte(`{}`), int64(1<<62), "\u009b", true, true)
	f.Fuzz(func(t *testing.T, raw []byte, code int64, msg string, forbidden, structural bool) {
		o := Outcome{Result: raw}
		if msg != "" || code != 0 {
			o = Outcome{RPCErr: &rpc.Error{Code: code, Message: msg}}
		}
		r, perr := ParseCallResult(raw)
		if perr == nil {
			if !json.Valid(raw) {
				t.Fatalf("parseCallResult accepted invalid JSON %q", raw)
			}
			if r.Size < utf8.RuneCountInString(r.Text) || r.Content < 0 {
				t.Fatalf("inconsistent result %+v", r)
			}
			if r.Structured != (r.StructRaw != nil) || r.StructRaw != nil && !json.Valid(r.StructRaw) {
				t.Fatalf("structured content %v with %q", r.Structured, r.StructRaw)
			}
			if r.Content == 0 && r.Text != "" {
				t.Fatalf("text %q without content blocks", r.Text)
			}
		}
		validErr := errors.New("does not match")
		for _, validate := range []func(json.RawMessage) error{nil, func(json.RawMessage) error { return nil }, func(json.RawMessage) error { return validErr }} {
			bad := judgeBad(structural, forbidden, o, same)
			good := judgeValid(o, forbidden, validate, same) // forbidden doubles as fromExample
			for _, j := range []struct {
				name    string
				j       Judgement
				allowed map[report.Verdict]bool
			}{{"bad", bad, badVerdicts}, {"valid", good, validVerdicts}} {
				if !j.allowed[j.j.Verdict] {
					t.Fatalf("%s case: verdict %q not allowed (%+v)", j.name, j.j.Verdict, j.j)
				}
				if strings.ContainsAny(j.j.Detail, "\r\n") || utf8.RuneCountInString(j.j.Detail) > 400 {
					t.Fatalf("%s case: detail is not one bounded line: %q", j.name, j.j.Detail)
				}
				if (j.j.Verdict == report.Crash) != (j.j.Crash != "") {
					t.Fatalf("%s case: verdict %q with crash %q", j.name, j.j.Verdict, j.j.Crash)
				}
			}
			if e := o.RPCErr; e != nil {
				internal := Classify(e.Code) == ClassInternal
				switch {
				case structural && bad.Verdict != report.Rejected:
					t.Fatalf("structural case answered with error %d: %q, want rejected", e.Code, bad.Verdict)
				case !structural && internal != (bad.Verdict == report.Crash):
					t.Fatalf("error %d: bad case %q", e.Code, bad.Verdict)
				case internal != (good.Verdict == report.Crash):
					t.Fatalf("error %d: valid case %q", e.Code, good.Verdict)
				case !strings.Contains(bad.Detail, fmt.Sprint(e.Code)):
					t.Fatalf("detail %q does not name the code %d", bad.Detail, e.Code)
				}
				continue
			}
			switch {
			case perr != nil:
				if bad.Verdict != report.ProtocolViolation || good.Verdict != report.ProtocolViolation {
					t.Fatalf("not a CallToolResult (%v), judged %q / %q", perr, bad.Verdict, good.Verdict)
				}
			case r.IsError:
				if bad.Verdict != report.Handled || good.Verdict != report.Errored {
					t.Fatalf("isError result judged %q / %q", bad.Verdict, good.Verdict)
				}
			case forbidden && bad.Verdict != report.Accepted, !forbidden && bad.Verdict != report.Tolerated:
				t.Fatalf("success on forbidden=%v input judged %q", forbidden, bad.Verdict)
			case validate == nil && good.Verdict == report.OutputViolation,
				validate != nil && !r.Structured && good.Verdict != report.OutputViolation:
				t.Fatalf("validate=%v, structured=%v: valid case %q", validate != nil, r.Structured, good.Verdict)
			}
		}
	})
}
