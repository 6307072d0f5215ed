package bigjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/jsontype"
)

func scan(t testing.TB, msg string, chunk int) Summary {
	t.Helper()
	var s Scanner
	b := []byte(msg)
	for len(b) > 0 {
		n := min(chunk, len(b))
		s.Write(b[:n])
		b = b[n:]
	}
	return s.Summary()
}

func TestScanner(t *testing.T) {
	tr, fa := true, false
	big := strings.Repeat(`x\"\\`, 1000)
	for _, tc := range []struct {
		name string
		msg  string
		want Summary
	}{
		{"result", `{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}`,
			Summary{Complete: true, Type: Object, HasVersion: true, Version: `"2.0"`, ID: "3", HasResult: true, ResultType: Object, IsError: &tr}},
		{"id last (TypeScript SDK)", `{"result":{"isError":false,"content":[{"text":"` + big + `"}]},"jsonrpc":"2.0","id":"a\"b"}`,
			Summary{Complete: true, Type: Object, HasVersion: true, Version: `"2.0"`, ID: `"a\"b"`, HasResult: true, ResultType: Object, IsError: &fa}},
		{"error", `{"jsonrpc":"2.0","error":{"message":"` + big + `","code":-32603,"data":{"code":1}},"id":7}`,
			Summary{Complete: true, Type: Object, HasVersion: true, Version: `"2.0"`, ID: "7", HasError: true, Code: -32603, HasCode: true}},
		{"nested isError is not result.isError", `{"id":1,"result":{"x":{"isError":true}}}`,
			Summary{Complete: true, Type: Object, ID: "1", HasResult: true, ResultType: Object}},
		{"nested id is not the id", `{"result":{"id":5,"a":[{"id":6}]}}`,
			Summary{Complete: true, Type: Object, HasResult: true, ResultType: Object}},
		{"escaped key", `{"i\u0064":9,"result":{}}`,
			Summary{Complete: true, Type: Object, ID: "9", HasResult: true, ResultType: Object}},
		{"deep", `{"id":1,"result":` + strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000) + `}`,
			Summary{Complete: true, Type: Object, ID: "1", HasResult: true, ResultType: Array}},
		{"request", `{"jsonrpc":"2.0","method":"notifications/message","params":{"id":1}}`,
			Summary{Complete: true, Type: Object, HasVersion: true, Version: `"2.0"`, HasMethod: true}},
		{"cut off", `{"id":1,"result":{"content":"abc`,
			Summary{Type: Object, ID: "1", HasResult: true, ResultType: Object}},
		{"long id", `{"id":"` + strings.Repeat("a", 100) + `","result":1}`,
			Summary{Complete: true, Type: Object, HasResult: true, ResultType: Number}},
		{"garbage", `{"id":1,"result":{"a":1]}`, Summary{Invalid: true}},
		{"trailing garbage", `{"id":1,"result":1} x`, Summary{Invalid: true}},
		{"not an object", `[{"id":1,"result":1}]`, Summary{Complete: true, Type: Array}},
		{"not JSON-RPC 2.0", `{"jsonrpc":"1.0","id":1,"result":"` + big + `"}`,
			Summary{Complete: true, Type: Object, HasVersion: true, Version: `"1.0"`, ID: "1", HasResult: true, ResultType: String}},
		{"version not a string", `{"jsonrpc":2.0,"id":1,"result":null}`,
			Summary{Complete: true, Type: Object, HasVersion: true, ID: "1", HasResult: true, ResultType: Null}},
		{"version repeated", `{"jsonrpc":"2.0","jsonrpc":{"v":"2.0"},"id":1,"result":true}`,
			Summary{Complete: true, Type: Object, HasVersion: true, ID: "1", HasResult: true, ResultType: Boolean}},
		{"result repeated", `{"result":"x","id":1,"result":{}}`,
			Summary{Complete: true, Type: Object, ID: "1", HasResult: true, ResultType: Object}},
		{"a string", `"` + big + `"`, Summary{Complete: true, Type: String}},
		{"a number", `-12`, Summary{Complete: true, Type: Number}},
	} {
		for _, chunk := range []int{1, 7, 1 << 20} {
			got := scan(t, tc.msg, chunk)
			tc.want.Bytes = int64(len(tc.msg))
			if !equal(got, tc.want) {
				t.Errorf("%s (chunks of %d): got %s, want %s", tc.name, chunk, show(got), show(tc.want))
			}
		}
	}
}

// typeNamed returns the Type whose String is name.
func typeNamed(t testing.TB, name string) Type {
	t.Helper()
	for ty := NoValue; ty <= Null; ty++ {
		if ty.String() == name {
			return ty
		}
	}
	t.Fatalf("no Type is named %q", name)
	return NoValue
}

func equal(a, b Summary) bool {
	if (a.IsError == nil) != (b.IsError == nil) || a.IsError != nil && *a.IsError != *b.IsError {
		return false
	}
	a.IsError, b.IsError = nil, nil
	return a == b
}

func show(s Summary) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestScannerAllocates nothing per byte.
func TestScannerAllocs(t *testing.T) {
	chunk := bytes.Repeat([]byte(`"abc\"def",[1.5e3,true,null,{"k":"v"}],`), 1000)
	var s Scanner
	s.Write([]byte(`{"id":1,"result":[`))
	allocs := testing.AllocsPerRun(100, func() { s.Write(chunk) })
	if allocs != 0 {
		t.Errorf("Write allocated %v times per call", allocs)
	}
}

// FuzzScanner checks the scanner against encoding/json.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"isError":true}}`,
		`{"result":{"content":[]},"jsonrpc":"2.0","id":"x\\\"y"}`,
		`{"error":{"code":-32602,"message":"m"},"id":1}`,
		`{"id":1e2,"error":{"code":1.0}}`,
		`{"id":null,"result":null,"result":{"isError":false},"id":-0.5}`,
		`{"\u0069d":[1],"method":"x"}`,
		`[1,2,{"id":1}]`,
		`{"a":"\ud83d\ude00"}`,
		`  {"id" : 12 , "result" : { "isError" : true } }  `,
		`{"id":1,"result":{}`,
		`{"jsonrpc":"1.0","result":"x","id":2}`,
		`{"jsonrpc":"2\u002e0","jsonrpc":2,"result":[1]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := scan(t, msg, 3)
		if got.Bytes != int64(len(msg)) {
			t.Fatalf("Bytes = %d, want %d", got.Bytes, len(msg))
		}
		valid := json.Valid([]byte(msg))
		if got.Complete != valid || got.Complete && got.Invalid {
			t.Fatalf("Complete = %v, Invalid = %v; json.Valid = %v", got.Complete, got.Invalid, valid)
		}
		if !valid {
			return
		}
		if !equal(got, scan(t, msg, len(msg)+1)) {
			t.Fatal("the summary depends on how the input was cut")
		}
		want := Summary{Bytes: int64(len(msg)), Complete: true, Type: typeNamed(t, jsontype.Of([]byte(msg)))}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(msg), &m) == nil && m != nil {
			if id, ok := m["id"]; ok && len(id) <= maxToken && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
				want.ID = string(id)
			}
			var res json.RawMessage
			res, want.HasResult = m["result"]
			want.ResultType = typeNamed(t, jsontype.Of(res))
			var version json.RawMessage
			version, want.HasVersion = m["jsonrpc"]
			if len(version) <= maxToken && jsontype.Of(version) == "string" {
				want.Version = string(version)
			}
			_, want.HasError = m["error"]
			_, want.HasMethod = m["method"]
			var e map[string]json.RawMessage
			if json.Unmarshal(m["error"], &e) == nil && e != nil {
				var code float64
				if json.Unmarshal(e["code"], &code) == nil && e["code"] != nil && string(e["code"]) != "null" &&
					code == math.Trunc(code) && math.Abs(code) <= 1<<53 {
					want.Code, want.HasCode = int64(code), true
				}
			}
			var r map[string]json.RawMessage
			if json.Unmarshal(m["result"], &r) == nil && r != nil {
				switch string(r["isError"]) {
				case "true":
					want.IsError = &yes
				case "false":
					want.IsError = &no
				}
			}
		}
		if !equal(got, want) {
			t.Fatalf("got %s, want %s", show(got), show(want))
		}
	})
}
