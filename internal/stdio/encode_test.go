package stdio

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The fast encoding of a request says exactly what jsonrpc.EncodeMessage
// says, as one line.
func TestEncodeMatchesTheSDK(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(7))
	sid, _ := jsonrpc.MakeID("a\"b")
	big := json.RawMessage(`{"name":"t","arguments":{"q":"` + string(bytes.Repeat([]byte("x"), 70000)) + `","u":"\u2028\n"}}`)
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Request{ID: id, Method: "tools/call", Params: big},
		&jsonrpc.Request{ID: sid, Method: "tools/call", Params: json.RawMessage(`[1,2]`)},
		&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":7}`)},
		&jsonrpc.Request{ID: id, Method: "ping"},
		&jsonrpc.Request{ID: id, Method: "x", Params: json.RawMessage("{\n  \"a\": 1\n}")},
	} {
		got, err := encode(m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(got, "\r\n") {
			t.Errorf("a line break in the frame: %.80s", got)
		}
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
			t.Fatalf("not JSON: %.80s", got)
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("encode = %.120s\nwant     %.120s", got, want)
		}
	}
}

func BenchmarkEncodeOversizeCall(b *testing.B) {
	id, _ := jsonrpc.MakeID(float64(7))
	m := &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"t","arguments":{"q":"` + string(bytes.Repeat([]byte("x"), 65536)) + `"}}`)}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			_, _ = encode(m)
		}
	})
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			_, _ = jsonrpc.EncodeMessage(m)
		}
	})
}
