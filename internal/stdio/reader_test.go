package stdio

import (
	"bufio"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-fuzz/mcp-fuzz/internal/jsonclip"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		line string
		kind string // "" for a good message
	}{
		// good
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{"x":[1,2]}}`, ""},
		{`{"jsonrpc":"2.0","id":1.0,"result":{}}`, ""},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}`, ""},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":{"a":1}}}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`, ""},
		{`  {"jsonrpc":"2.0","id":1,"result":{}}  `, ""},
		{`{"id":1,"result":{},"jsonrpc":"2.0"}`, ""},

		// not JSON
		{`hello`, KindNonJSONRPC},
		{`Server started on stdio`, KindNonJSONRPC},
		{`{"jsonrpc":"2.0","id":1,"result":{}} trailing`, KindNonJSONRPC},
		{`{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":2,"result":{}}`, KindNonJSONRPC},
		{`{"jsonrpc":"2.0",`, KindNonJSONRPC},
		{"\x1b[32mINFO\x1b[0m ready", KindNonJSONRPC},

		// JSON, not JSON-RPC 2.0
		{`{"foo":1}`, KindMalformedEnvelope},
		{`42`, KindMalformedEnvelope},
		{`"text"`, KindMalformedEnvelope},
		{`null`, KindMalformedEnvelope},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, KindMalformedEnvelope},
		{`{"id":1,"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":2.0,"id":1,"result":{}}`, KindMalformedEnvelope},
		{`{"JSONRPC":"2.0","id":1,"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1.5,"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":true,"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":{},"result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"error":"boom"}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","method":5}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","method":"x","id":null}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","method":"x","params":"str"}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","method":"x","result":{}}`, KindMalformedEnvelope},
		{`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, ""}, // clipped, not refused: see TestDeepMessageIsClippedNotRejected

		// valid JSON-RPC that answers no request
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, KindNullIDError},
	} {
		msg, v := classify([]byte(tc.line))
		switch {
		case tc.kind == "" && v != nil:
			t.Errorf("classify(%.80s) = violation %+v, want a message", tc.line, *v)
		case tc.kind != "" && v == nil:
			t.Errorf("classify(%.80s) = %#v, want a %s violation", tc.line, msg, tc.kind)
		case v != nil && (v.Kind != tc.kind || v.Reason == ""):
			t.Errorf("classify(%.80s) = %+v, want kind %s with a reason", tc.line, *v, tc.kind)
		}
	}
}

// TestDecodeMessageIsLenient records why checkEnvelope exists: these lines are not
// valid JSON-RPC 2.0, yet the SDK decodes them without error.
func TestDecodeMessageIsLenient(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}} trailing`,
		`{"jsonrpc":"2.0","method":"x","id":null}`,
	} {
		if _, err := jsonrpc.DecodeMessage([]byte(line)); err != nil {
			t.Logf("the SDK now rejects %s (%v); checkEnvelope still does too", line, err)
		}
		if _, v := classify([]byte(line)); v == nil {
			t.Errorf("classify accepted %s", line)
		}
	}
}

func TestReadLine(t *testing.T) {
	const max = 10
	input := strings.Join([]string{
		"short",
		"crlf\r",
		"exactly10!",
		"exactly10\r", // 9 bytes and CR: fits
		"eleven-byte",
		strings.Repeat("L", excerptLen+100), // longer than the bufio buffer below, and than an excerpt
		"",
		"tail-without-newline",
	}, "\n")
	r := bufio.NewReaderSize(strings.NewReader(input), 16)
	type res struct {
		line    string
		tooLong bool
	}
	var got []res
	for {
		line, tooLong, err := readLine(r, max)
		got = append(got, res{string(line), tooLong})
		if err != nil {
			break
		}
	}
	want := []res{
		{"short", false},
		{"crlf", false},
		{"exactly10!", false},
		{"exactly10", false},
		{"eleven-byte", true},
		{strings.Repeat("L", excerptLen), true},
		{"", false},
		{"tail-without-newline", true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestRing(t *testing.T) {
	r := newRing(8)
	r.Write([]byte("abc"))
	if got := r.String(); got != "abc" {
		t.Errorf("String = %q", got)
	}
	r.Write([]byte("defgh"))
	if got := r.String(); got != "abcdefgh" {
		t.Errorf("String = %q", got)
	}
	r.Write([]byte("ij"))
	if got := r.String(); got != "cdefghij" {
		t.Errorf("String = %q", got)
	}
	r.Write([]byte("0123456789XYZ"))
	if got := r.String(); got != "56789XYZ" {
		t.Errorf("String = %q", got)
	}
	if len(r.buf) != 8 || cap(r.buf) != 8 {
		t.Errorf("buffer grew to %d", cap(r.buf))
	}
	// A multi-byte character cut at the start is dropped, not shown as garbage.
	r = newRing(4)
	r.Write([]byte("xé€")) // 1 + 2 + 3 bytes: the tail starts inside é
	if got := r.String(); got != "€" {
		t.Errorf("String = %q, want %q", got, "€")
	}
}

func TestDeepMessageIsClippedNotRejected(t *testing.T) {
	schema := strings.Repeat(`{"type":"object","properties":{"x":`, 5000) + `{}` + strings.Repeat(`}}`, 5000)
	line := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"deep","inputSchema":` + schema + `},{"name":"sane","inputSchema":{"type":"object"}}]}}`
	msg, v := classify([]byte(line))
	if v != nil {
		t.Fatalf("a 10,000-deep answer was rejected: %+v", *v)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || !strings.Contains(string(resp.Result), `"name":"sane"`) || !strings.Contains(string(resp.Result), jsonclip.Marker) {
		t.Fatalf("clipped result lost the other tool or the marker: %.200s", resp.Result)
	}
}

// classify builds messages itself instead of calling jsonrpc.DecodeMessage;
// for every valid line both must agree.
func TestClassifyAgreesWithSDKDecoder(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"abc","result":{}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`,
		`{"jsonrpc":"2.0","id":9007199254740991,"method":"roots/list","params":{}}`,
	} {
		got, v := classify([]byte(line))
		if v != nil {
			t.Fatalf("classify(%s): violation %+v", line, *v)
		}
		want, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := jsonrpc.EncodeMessage(got)
		w, _ := jsonrpc.EncodeMessage(want)
		if string(g) != string(w) {
			t.Errorf("classify(%s) = %s, SDK decodes %s", line, g, w)
		}
	}
}
