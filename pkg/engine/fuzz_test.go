package engine

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

// FuzzToolsList decodes arbitrary tools/list results as discover does
// (parsePage, then decodeTools). A page is refused only when it is not an
// object, its tools are not an array or its nextCursor is not a string; every
// entry of an accepted page becomes either a tool or a lint; no tool has an
// empty or repeated name; whatever is kept raw is valid JSON.
func FuzzToolsList(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"get_weather","description":"d","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}`,
		`{"tools":[{"name":"a","inputSchema":{}},{"name":"a"},{"name":""},{"description":"nameless"},42,null,"x",[]],"nextCursor":"c1"}`,
		`{"tools":[{"name":7},{"name":null},{"name":["x"]},{"name":"\u202e\u0000"}],"nextCursor":null}`,
		`{"tools":[{"name":"t","annotations":{"readOnlyHint":true,"destructiveHint":"yes"},"execution":{"taskSupport":"required"},"outputSchema":{"type":"object"}}]}`,
		`{"tools":[{"name":"t","annotations":[],"execution":5}]}`,
		`{"tools":[{"name":"x","name":"y"}],"nextCursor":""}`,
		`{"tools":null}`,
		`{"tools":{}}`,
		`{"nextCursor":5}`,
		`{}`,
		`[]`,
		`null`,
		`{"tools":[{"name":"deep","inputSchema":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200) + `}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := parsePage(raw, "tools")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if !json.Valid(raw) || !strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
			t.Fatalf("parsePage accepted %q, which is not a JSON object", raw)
		}
		tools, lint := decodeTools(p.Items)
		if len(tools)+len(lint) != len(p.Items) {
			t.Fatalf("%d entries became %d tools and %d lints", len(p.Items), len(tools), len(lint))
		}
		seen := map[string]bool{}
		for _, tl := range tools {
			if tl.Name == "" {
				t.Fatalf("tool with an empty name kept, without a lint: %+v", tl)
			}
			if seen[tl.Name] {
				t.Fatalf("tool name %q kept twice", tl.Name)
			}
			seen[tl.Name] = true
			for name, v := range map[string]json.RawMessage{"inputSchema": tl.InputSchema, "outputSchema": tl.OutputSchema, "annotations": tl.Annotations} {
				if v != nil && !json.Valid(v) {
					t.Fatalf("tool %q: %s is not valid JSON: %q", tl.Name, name, v)
				}
			}
			if tl.Annotations == nil && (tl.ReadOnly != nil || tl.Destructive != nil) {
				t.Fatalf("tool %q: hints without annotations", tl.Name)
			}
		}
		byPointer := map[string]string{}
		for _, l := range lint {
			byPointer[l.Pointer] = l.Code
		}
		nameless := 0
		for i, it := range p.Items {
			if !strings.HasPrefix(strings.TrimSpace(string(it)), "{") {
				if c := byPointer[fmt.Sprintf("/tools/%d", i)]; c != "tool_not_object" {
					t.Fatalf("entry %d (%.40s) is not an object, linted %q", i, it, c)
				}
				continue
			}
			var fields map[string]json.RawMessage
			if json.Unmarshal(it, &fields) == nil {
				var name string
				if json.Unmarshal(fields["name"], &name) != nil || name == "" {
					nameless++
				}
			}
		}
		withoutName := 0
		for _, l := range lint {
			switch l.Code {
			case "tool_without_name":
				withoutName++
			case "tool_not_object", "duplicate_tool_name":
			default:
				t.Fatalf("unknown lint code %q", l.Code)
			}
			if l.Severity != "error" || l.Message == "" || l.Hint == "" {
				t.Fatalf("incomplete lint %+v", l)
			}
		}
		if withoutName != nameless {
			t.Fatalf("%d entries have no usable name, %d tool_without_name lints", nameless, withoutName)
		}
	})
}

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
		o := outcome{result: raw}
		if msg != "" || code != 0 {
			o = outcome{rpcErr: &rpc.Error{Code: code, Message: msg}}
		}
		r, perr := parseCallResult(raw)
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
			bad := judgeBad(structural, forbidden, o)
			good := judgeValid(o, forbidden, validate) // forbidden doubles as fromExample
			for _, j := range []struct {
				name    string
				j       judgement
				allowed map[report.Verdict]bool
			}{{"bad", bad, badVerdicts}, {"valid", good, validVerdicts}} {
				if !j.allowed[j.j.verdict] {
					t.Fatalf("%s case: verdict %q not allowed (%+v)", j.name, j.j.verdict, j.j)
				}
				if strings.ContainsAny(j.j.detail, "\r\n") || utf8.RuneCountInString(j.j.detail) > 400 {
					t.Fatalf("%s case: detail is not one bounded line: %q", j.name, j.j.detail)
				}
				if (j.j.verdict == report.Crash) != (j.j.crash != "") {
					t.Fatalf("%s case: verdict %q with crash %q", j.name, j.j.verdict, j.j.crash)
				}
			}
			if e := o.rpcErr; e != nil {
				internal := classifyCode(e.Code) == codeInternal
				switch {
				case structural && bad.verdict != report.Rejected:
					t.Fatalf("structural case answered with error %d: %q, want rejected", e.Code, bad.verdict)
				case !structural && internal != (bad.verdict == report.Crash):
					t.Fatalf("error %d: bad case %q", e.Code, bad.verdict)
				case internal != (good.verdict == report.Crash):
					t.Fatalf("error %d: valid case %q", e.Code, good.verdict)
				case !strings.Contains(bad.detail, fmt.Sprint(e.Code)):
					t.Fatalf("detail %q does not name the code %d", bad.detail, e.Code)
				}
				continue
			}
			switch {
			case perr != nil:
				if bad.verdict != report.ProtocolViolation || good.verdict != report.ProtocolViolation {
					t.Fatalf("not a CallToolResult (%v), judged %q / %q", perr, bad.verdict, good.verdict)
				}
			case r.IsError:
				if bad.verdict != report.Handled || good.verdict != report.Errored {
					t.Fatalf("isError result judged %q / %q", bad.verdict, good.verdict)
				}
			case forbidden && bad.verdict != report.Accepted, !forbidden && bad.verdict != report.Tolerated:
				t.Fatalf("success on forbidden=%v input judged %q", forbidden, bad.verdict)
			case validate == nil && good.verdict == report.OutputViolation,
				validate != nil && !r.Structured && good.verdict != report.OutputViolation:
				t.Fatalf("validate=%v, structured=%v: valid case %q", validate != nil, r.Structured, good.verdict)
			}
		}
	})
}
