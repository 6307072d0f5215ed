package rpc

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/bigjson"
)

func summarize(msg string) bigjson.Summary {
	var sc bigjson.Scanner
	sc.Write([]byte(msg))
	return sc.Summary()
}

// An answer over the cap is judged from its scan: a malformed envelope must
// show in Malformed, however large the answer.
func TestOversizeMalformed(t *testing.T) {
	pad := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name  string
		msg   string
		ended bool
		want  string
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + pad + `"}]}}`, true, ""},
		{"id last", `{"result":{"content":[]},"jsonrpc":"2.0","id":1}`, true, ""},
		{"escaped version", `{"jsonrpc":"2\u002e0","id":1,"result":{}}`, true, ""},
		{"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"` + pad + `"}}`, true, ""},
		{"unfinished", `{"result":{"content":[{"text":"` + pad, false, ""},
		{"version 1.0", `{"jsonrpc":"1.0","id":1,"result":{"x":"` + pad + `"}}`, true, `"jsonrpc" is not "2.0"`},
		{"version a number", `{"jsonrpc":2.0,"id":1,"result":{}}`, true, `"jsonrpc" is not "2.0"`},
		{"version long", `{"jsonrpc":"` + pad + `","id":1,"result":{}}`, true, `"jsonrpc" is not "2.0"`},
		{"version wrong, unfinished", `{"jsonrpc":"1.0","id":1,"result":{"x":"` + pad, false, `"jsonrpc" is not "2.0"`},
		{"no version", `{"id":1,"result":{}}`, true, `no "jsonrpc" member`},
		{"result a string", `{"jsonrpc":"2.0","id":1,"result":"` + pad + `"}`, true, `"result" is not an object`},
		{"result an array, unfinished", `{"jsonrpc":"2.0","id":1,"result":["` + pad, false, `"result" is not an object`},
		{"result null", `{"jsonrpc":"2.0","id":1,"result":null}`, true, `"result" is not an object`},
		{"both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"` + pad + `"}}`, true, `both "result" and "error"`},
		{"neither", `{"jsonrpc":"2.0","id":1,"data":"` + pad + `"}`, true, `neither "result" nor "error"`},
		{"error without code", `{"jsonrpc":"2.0","id":1,"error":{"message":"` + pad + `"}}`, true, `"error" has no integer "code"`},
		{"error a string", `{"jsonrpc":"2.0","id":1,"error":"` + pad + `"}`, true, `"error" has no integer "code"`},
		{"a request", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + pad + `"}}`, true, `a request, not an answer`},
		{"not JSON", pad, true, "not JSON"},
		{"not JSON, unfinished", `{"jsonrpc":"2.0","id":1,"result":{"x":1]`, false, "not JSON"},
		{"cut short", `{"jsonrpc":"2.0","id":1,"result":{"x":"` + pad, true, "not JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"result":{}} {}`, true, "not JSON"},
		{"an array", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, true, "not a JSON object"},
	} {
		o := NewOversize(summarize(tc.msg), tc.ended, []byte(tc.msg))
		if o.Malformed != tc.want {
			t.Errorf("%s: Malformed = %q, want %q", tc.name, o.Malformed, tc.want)
		}
	}
}
