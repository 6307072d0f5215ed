package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// classifySeeds are stdout lines of every shape a server writes: good
// messages of each kind, log lines, broken envelopes, odd ids, deep nesting.
var classifySeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}],"nextCursor":null}}`,
	`{"jsonrpc":"2.0","id":1.0,"result":null}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad","data":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":1e3,"message":"exp code"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"method":""}`,
	`{"jsonrpc":"2.0","method":"x","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
	`{"jsonrpc":"2.0","id":-0,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e400,"result":{}}`,
	`{"jsonrpc":"2.0","id":"\u009b\u202e","result":"\u0000"}`,
	`{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"id":"x"}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
	`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`{"jsonrpc":"2.0","id":1}`,
	"Server started on stdio \x1b[32mOK\x1b[0m",
	"\xff\xfe{\"jsonrpc\":\"2.0\"}",
	"  \t",
	"",
}

var violationKinds = map[string]bool{
	KindNonJSONRPC: true, KindMalformedEnvelope: true, KindLineTooLong: true, KindNullIDError: true,
}

// FuzzClassify feeds arbitrary stdout lines to classify. It must return
// exactly one of a message and a violation; a violation has a known kind, a
// reason and a printable excerpt; a message encodes back to a line that
// classify accepts as the same message.
func FuzzClassify(f *testing.F) {
	for _, s := range classifySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(bytes.TrimSpace(line)) == 0 {
			return // readStdout never classifies blank lines
		}
		msg, v := classify(line)
		if (msg == nil) == (v == nil) {
			t.Fatalf("classify(%q) = %v, %v: want exactly one of message and violation", line, msg, v)
		}
		if v != nil {
			if !violationKinds[v.Kind] || v.Reason == "" {
				t.Fatalf("classify(%q): violation %+v has an unknown kind or no reason", line, *v)
			}
			checkPrintable(t, "excerpt", v.Excerpt)
			return
		}
		wire, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("classify(%q) = %#v, which does not encode: %v", line, msg, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "" {
			return // the SDK drops an empty method when encoding ("omitempty")
		}
		again, v2 := classify(wire)
		if v2 != nil {
			t.Fatalf("classify(%q) = %#v, re-encoded as %q, which classify rejects: %+v", line, msg, wire, *v2)
		}
		if !sameMessage(msg, again) {
			t.Fatalf("classify(%q) = %#v, re-encoded as %q, classified as %#v", line, msg, wire, again)
		}
	})
}

// sameMessage reports whether a and b are the same request or response,
// comparing JSON values by meaning.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameJSON(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || !sameJSON(a.Result, b.Result) || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		if a.Error == nil {
			return true
		}
		ea, eb := a.Error.(*jsonrpc.Error), b.Error.(*jsonrpc.Error)
		return ea.Code == eb.Code && ea.Message == eb.Message && sameJSON(ea.Data, eb.Data)
	}
	return false
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

func checkPrintable(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s %q is not valid UTF-8", what, s)
	}
	for _, r := range s {
		if r != ' ' && !unicode.IsGraphic(r) {
			t.Fatalf("%s %q holds unprintable %U", what, s, r)
		}
	}
}

// FuzzReadLine reads arbitrary output through readLine with a small buffer
// (so lines arrive in fragments) and checks it against strings.Split: one
// call per line, the line without "\n" and one "\r", tooLong exactly when
// the line is longer than max, and then a prefix of at most excerptLen bytes.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), uint16(10))
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n"), uint16(3))
	f.Add([]byte(strings.Repeat("x", 300)+"\r\n"+strings.Repeat("y", 40)+"\n\n"), uint16(32))
	f.Add([]byte("\r\r\n\r"), uint16(0))
	f.Add([]byte(strings.Repeat("z", 17)+"\r"+"\n"), uint16(17))
	f.Add(bytes.Repeat([]byte("0123456789abcdef"), 20), uint16(250))
	f.Fuzz(func(t *testing.T, data []byte, max16 uint16) {
		max := int(max16 % 512)
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		want := bytes.Split(data, []byte("\n"))
		for i, w := range want {
			w = bytes.TrimSuffix(w, []byte("\r"))
			line, tooLong, err := readLine(br, max)
			last := i == len(want)-1
			if last != (err != nil) {
				t.Fatalf("line %d of %q: err = %v, want an error only at the end", i, data, err)
			}
			if tooLong != (len(w) > max) {
				t.Fatalf("line %d (%d bytes, max %d): tooLong = %v", i, len(w), max, tooLong)
			}
			switch {
			case !tooLong && !bytes.Equal(line, w):
				t.Fatalf("line %d: got %q, want %q", i, line, w)
			case tooLong && (len(line) > excerptLen || !bytes.HasPrefix(w, line)):
				t.Fatalf("line %d: excerpt %q is not a prefix of at most %d bytes of %q", i, line, excerptLen, w)
			case tooLong && len(line) < min(len(w), excerptLen)-1:
				t.Fatalf("line %d: excerpt %q is too short for %d bytes", i, line, len(w))
			}
		}
	})
}
