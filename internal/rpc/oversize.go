package rpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-fuzz/mcp-fuzz/internal/bigjson"
)

// DefaultMaxResponse is the default response cap: the largest answer held in
// memory. A larger one is counted and discarded (see [Oversize]).
const DefaultMaxResponse = 4 << 20

// HeadLen is how many bytes of an oversize answer [Oversize.Head] keeps:
// more than a report shows, so that a secret cut by the end of what it shows
// is still whole when the engine redacts the head, before it cuts it shorter.
const HeadLen = 1024

// Oversize is the answer to a call that was larger than the response cap.
// [Client.Call] returns it as its error. Only the connection produces it,
// never the decoder, so a server cannot forge one.
type Oversize struct {
	Bytes         int64  // bytes counted (the whole answer when Ended)
	Ended         bool   // the answer ended; false when it was cut off by the deadline or a close
	IsErrorAnswer bool   // a JSON-RPC error answer
	Code          int64  // its code when IsErrorAnswer
	IsError       *bool  // result.isError when present
	Head          string // the first HeadLen bytes, control characters escaped; not redacted
	// Malformed is why the answer breaks JSON-RPC 2.0 (`"jsonrpc" is not
	// "2.0"`, `"result" is not an object`, "not JSON", ...), "" when its
	// envelope is sound as far as it was read.
	Malformed string
}

func (o *Oversize) Error() string {
	var kind string
	switch {
	case o.IsErrorAnswer:
		kind = fmt.Sprintf("a JSON-RPC error %d", o.Code)
	case o.IsError != nil && *o.IsError:
		kind = "a result with isError true"
	default:
		kind = "a result"
	}
	if o.Malformed != "" {
		kind = "malformed: " + o.Malformed
	}
	if !o.Ended {
		return fmt.Sprintf("an answer still unfinished after %d bytes (%s so far)", o.Bytes, kind)
	}
	return fmt.Sprintf("an answer of %d bytes, over the response cap (%s)", o.Bytes, kind)
}

// NewOversize describes an oversize answer from what a [bigjson.Scanner]
// found in it and its first bytes.
func NewOversize(sum bigjson.Summary, ended bool, head []byte) *Oversize {
	return &Oversize{
		Bytes:         sum.Bytes,
		Ended:         ended,
		IsErrorAnswer: sum.HasError,
		Code:          sum.Code,
		IsError:       sum.IsError,
		Head:          Excerpt(head, HeadLen),
		Malformed:     Malformed(sum, ended),
	}
}

// Malformed returns why the message a [bigjson.Scanner] summed up is no
// well-formed JSON-RPC 2.0 answer, or "". ended tells whether the whole
// message was scanned: of an unfinished one, only what was seen counts (its
// "jsonrpc" or "id" may come last). It does not look at the id, which only
// the caller can match.
func Malformed(sum bigjson.Summary, ended bool) string {
	switch {
	case sum.Invalid, ended && !sum.Complete:
		return "not JSON"
	case sum.Type != bigjson.NoValue && sum.Type != bigjson.Object:
		return "not a JSON object"
	case sum.HasVersion && !isVersion2(sum.Version):
		return `"jsonrpc" is not "2.0"`
	case ended && !sum.HasVersion:
		return `no "jsonrpc" member`
	case sum.HasMethod:
		return "a request, not an answer"
	case sum.HasResult && sum.HasError:
		return `both "result" and "error"`
	case ended && !sum.HasResult && !sum.HasError:
		return `neither "result" nor "error"`
	case sum.HasResult && sum.ResultType != bigjson.NoValue && sum.ResultType != bigjson.Object:
		return `"result" is not an object`
	case ended && sum.HasError && !sum.HasCode:
		return `"error" has no integer "code"`
	}
	return ""
}

// isVersion2 reports whether raw, a "jsonrpc" value as written, is the
// string "2.0" (escapes allowed). A value not kept by the scanner is "".
func isVersion2(raw string) bool {
	if raw == `"2.0"` {
		return true
	}
	var v string
	return raw != "" && json.Unmarshal([]byte(raw), &v) == nil && v == "2.0"
}

// OversizeResponse returns the response that stands for an oversize message
// the scanner read whole, when the message is an answer with an id: its
// Error is an [*Oversize]. ok is false for anything else (no id, a request, a
// notification, not JSON).
func OversizeResponse(sum bigjson.Summary, head []byte) (resp *jsonrpc.Response, ok bool) {
	if !sum.Complete || sum.ID == "" || sum.HasMethod || sum.HasResult == sum.HasError {
		return nil, false
	}
	id, ok := ParseID(sum.ID)
	if !ok {
		return nil, false
	}
	return &jsonrpc.Response{ID: id, Error: NewOversize(sum, true, head)}, true
}

// ParseID turns an id as written in a message (a JSON string or an integer)
// into a [jsonrpc.ID].
func ParseID(raw string) (jsonrpc.ID, bool) {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return jsonrpc.ID{}, false
	}
	if f, isNum := v.(float64); isNum && f != float64(int64(f)) {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil
}

// Excerpt returns the first n bytes of b with control characters and invalid
// UTF-8 escaped, so that it is safe to print.
func Excerpt(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r == ' ' || unicode.IsGraphic(r):
			sb.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
		b = b[size:]
	}
	return sb.String()
}
