package bigjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
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
			Summary{Complete: true, ID: "3", HasResult: true, IsError: &tr}},
		{"id last (TypeScript SDK)", `{"result":{"isError":false,"content":[{"text":"` + big + `"}]},"jsonrpc":"2.0","id":"a\"b"}`,
			Summary{Complete: true, ID: `"a\"b"`, HasResult: true, IsError: &fa}},
		{"error", `{"jsonrpc":"2.0","error":{"message":"` + big + `","code":-32603,"data":{"code":1}},"id":7}`,
			Summary{Complete: true, ID: "7", HasError: true, Code: -32603, HasCode: true}},
		{"nested isError is not result.isError", `{"id":1,"result":{"x":{"isError":true}}}`,
			Summary{Complete: true, ID: "1", HasResult: true}},
		{"nested id is not the id", `{"result":{"id":5,"a":[{"id":6}]}}`,
			Summary{Complete: true, HasResult: true}},
		{"escaped key", `{"i\u0064":9,"result":{}}`,
			Summary{Complete: true, ID: "9", HasResult: true}},
		{"deep", `{"id":1,"result":` + strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000) + `}`,
			Summary{Complete: true, ID: "1", HasResult: true}},
		{"request", `{"jsonrpc":"2.0","method":"notifications/message","params":{"id":1}}`,
			Summary{Complete: true, HasMethod: true}},
		{"cut off", `{"id":1,"result":{"content":"abc`,
			Summary{ID: "1", HasResult: true}},
		{"long id", `{"id":"` + strings.Repeat("a", 100) + `","result":1}`,
			Summary{Complete: true, HasResult: true}},
		{"garbage", `{"id":1,"result":{"a":1]}`, Summary{Invalid: true}},
		{"trailing garbage", `{"id":1,"result":1} x`, Summary{Invalid: true}},
		{"not an object", `[{"id":1,"result":1}]`, Summary{Complete: true}},
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
		want := Summary{Bytes: int64(len(msg)), Complete: true}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(msg), &m) == nil && m != nil {
			if id, ok := m["id"]; ok && len(id) <= maxToken && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
				want.ID = string(id)
			}
			_, want.HasResult = m["result"]
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
