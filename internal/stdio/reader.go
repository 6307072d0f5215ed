package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-fuzz/mcp-fuzz/internal/bigjson"
	"github.com/mcp-fuzz/mcp-fuzz/internal/jsonclip"
	"github.com/mcp-fuzz/mcp-fuzz/internal/jsontype"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// Kinds of [Violation].
const (
	// KindNonJSONRPC is a stdout line that is not JSON at all (log output, a banner,
	// JSON followed by something else).
	KindNonJSONRPC = "non_jsonrpc_line"
	// KindMalformedEnvelope is a JSON line that is not a valid JSON-RPC 2.0 message:
	// a missing or wrong "jsonrpc" member, a response with both or neither of
	// "result" and "error", an id that is not a string or an integer, and so on.
	KindMalformedEnvelope = "malformed_envelope"
	// KindLineTooLong is a line longer than Config.MaxLine that is not an
	// answer with an id (which is delivered as an [rpc.Oversize]). It is skipped.
	KindLineTooLong = "line_too_long"
	// KindNullIDError is an error response whose id is null. JSON-RPC 2.0 allows it
	// for errors about a request whose id could not be read, so it is not malformed,
	// but it answers no request and cannot be passed on: it is reported instead.
	KindNullIDError = "null_id_error"
)

// excerptLen is how many bytes of an offending line a [Violation] keeps:
// more than a report shows, so that a secret cut by the end of what it shows
// is still whole when the engine redacts the excerpt, before it cuts it
// shorter. It is also the head of an oversize answer ([rpc.HeadLen]).
const excerptLen = rpc.HeadLen

// A Violation is a line on the server's stdout that is not a JSON-RPC message.
type Violation struct {
	Kind    string // one of the Kind constants
	Excerpt string // the first 1024 bytes of the line, control characters escaped; not redacted
	Reason  string // what is wrong with it, for a report
}

func (p *Process) readStdout() {
	defer close(p.readerDone)
	defer p.endMessages()
	lr := lineReader{
		r:    bufio.NewReaderSize(countingReader{p.stdout, &p.outRead}, 64<<10),
		max:  p.cfg.MaxLine,
		used: &p.outUsed,
	}
	for {
		line, tooLong, err := lr.next()
		switch {
		case tooLong:
			// An answer too large to hold still answers its call: the
			// caller gets an rpc.Oversize instead of waiting in vain.
			ended := err == nil || errors.Is(err, io.EOF)
			if resp, ok := rpc.OversizeResponse(lr.sc.Summary(), line); ok && ended {
				if !p.send(resp) {
					return
				}
				break
			}
			p.violation(Violation{
				Kind:    KindLineTooLong,
				Excerpt: excerpt(line),
				Reason:  fmt.Sprintf("line longer than %d bytes", p.cfg.MaxLine),
			})
		case len(bytes.TrimSpace(line)) > 0:
			msg, v := classify(line)
			if v != nil {
				p.violation(*v)
				break
			}
			if !p.send(msg) {
				return
			}
		}
		if err != nil {
			return // io.EOF, or the pipe was closed by terminate
		}
	}
}

// send hands msg to the pusher, if there is one, or queues it for Read. It
// reports false when the connection was closed first.
func (p *Process) send(msg jsonrpc.Message) bool {
	p.sinkMu.Lock()
	if p.deliver != nil {
		p.deliver(msg)
		p.sinkMu.Unlock()
		return true
	}
	select {
	case p.msgs <- msg:
		p.sinkMu.Unlock()
		return true
	default:
	}
	p.sinkMu.Unlock()
	select {
	case p.msgs <- msg:
	case <-p.closed:
		return false
	}
	// A Push may have come while this waited; it must get msg too.
	p.sinkMu.Lock()
	if p.deliver != nil {
		p.drainMessages()
	}
	p.sinkMu.Unlock()
	return true
}

// endMessages says that no message will follow.
func (p *Process) endMessages() {
	p.sinkMu.Lock()
	defer p.sinkMu.Unlock()
	close(p.msgs)
	if p.end != nil {
		p.end(ErrClosed)
	}
}

// push implements [rpc.Pusher] for the process's connection.
func (p *Process) push(deliver func(jsonrpc.Message), end func(error)) {
	p.sinkMu.Lock()
	defer p.sinkMu.Unlock()
	p.deliver, p.end = deliver, end
	p.drainMessages()
}

// drainMessages hands the queued messages to the pusher. p.sinkMu is held.
func (p *Process) drainMessages() {
	for {
		select {
		case msg, ok := <-p.msgs:
			if !ok {
				p.end(ErrClosed)
				p.end = nil // called once
				return
			}
			p.deliver(msg)
		default:
			return
		}
	}
}

// PendingLine returns how many bytes of a stdout line have been read with no
// newline yet: 0 between lines. After a call timed out, a large value means
// an answer was still coming (or will never end), not that the server hung.
func (p *Process) PendingLine() int64 {
	return max(p.outRead.Load()-p.outUsed.Load(), 0)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func (p *Process) violation(v Violation) {
	if p.cfg.OnViolation != nil {
		p.cfg.OnViolation(v)
	}
}

// readLine reads one line and returns it without its "\n" or "\r\n". If the line is
// longer than max bytes, the rest of it is read and discarded, and readLine returns
// its first excerptLen bytes with tooLong set. err is non-nil only at the end of
// input, and then line holds whatever came after the last newline.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	lr := lineReader{r: r, max: max}
	return lr.next()
}

// lineReader reads stdout lines holding at most max bytes of one: the rest
// of a longer line goes through a scanner, which keeps what identifies it.
type lineReader struct {
	r    *bufio.Reader
	max  int
	used *atomic.Int64 // if not nil, the bytes of the lines read so far
	sc   bigjson.Scanner
	n    int64
}

// next reads one line; see [readLine]. After a line that was too long, lr.sc
// holds the summary of the whole line.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	lr.sc = bigjson.Scanner{}
	for {
		frag, e := lr.r.ReadSlice('\n')
		lr.n += int64(len(frag))
		body := frag
		if e == nil {
			body = frag[:len(frag)-1]
		}
		if !tooLong && len(line)+len(frag) > lr.max+2 { // longer than max plus "\r\n"
			tooLong = true
			lr.sc.Write(line)
			line = append([]byte(nil), line[:min(len(line), excerptLen)]...)
		}
		if !tooLong {
			line = append(line, frag...)
		} else {
			lr.sc.Write(body)
			if k := excerptLen - len(line); k > 0 {
				line = append(line, body[:min(k, len(body))]...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		err = e
		break
	}
	if lr.used != nil {
		lr.used.Store(lr.n)
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > lr.max && !tooLong {
		tooLong = true
		lr.sc.Write(line)
	}
	if tooLong {
		line = line[:min(len(line), excerptLen)]
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("reading server stdout: %w", err)
	}
	return line, tooLong, err
}

// maxDepth is the nesting depth beyond which values of a message are clipped
// (see [jsonclip.Clip]): decoders refuse deeper documents whole, and one
// absurdly nested tool schema must not hide the rest of a tools/list answer.
const maxDepth = 256

// classify decodes one stdout line. It returns either a message or the reason the
// line is not one.
func classify(line []byte) (jsonrpc.Message, *Violation) {
	bad := func(kind, reason string) (jsonrpc.Message, *Violation) {
		return nil, &Violation{Kind: kind, Excerpt: excerpt(line), Reason: reason}
	}
	if !json.Valid(line) {
		// Decoders refuse documents nested beyond their limit; clip only
		// then, so ordinary messages are not scanned once more.
		clipped, cut := jsonclip.Clip(line, maxDepth)
		if !cut || !json.Valid(clipped) {
			return bad(KindNonJSONRPC, "not JSON")
		}
		line = clipped
	}
	m, kind, reason := checkEnvelope(line)
	if kind != "" {
		return bad(kind, reason)
	}
	// Built from the members already decoded: jsonrpc.DecodeMessage would
	// decode the line a second time through a fresh 32 KiB buffer per call.
	msg, err := buildMessage(m)
	if err != nil {
		return bad(KindMalformedEnvelope, err.Error())
	}
	return msg, nil
}

// buildMessage turns the members of an envelope accepted by checkEnvelope
// into a request or a response.
func buildMessage(m map[string]json.RawMessage) (jsonrpc.Message, error) {
	var id jsonrpc.ID
	if raw, ok := m["id"]; ok {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, err
		}
	}
	if method, ok := m["method"]; ok {
		var name string
		if err := json.Unmarshal(method, &name); err != nil {
			return nil, err
		}
		return &jsonrpc.Request{ID: id, Method: name, Params: m["params"]}, nil
	}
	if errv, ok := m["error"]; ok {
		var we jsonrpc.Error
		if err := json.Unmarshal(errv, &we); err != nil {
			return nil, err
		}
		return &jsonrpc.Response{ID: id, Error: &we}, nil
	}
	return &jsonrpc.Response{ID: id, Result: m["result"]}, nil
}

// checkEnvelope applies the JSON-RPC 2.0 rules, stricter than
// [jsonrpc.DecodeMessage]. line must be valid JSON. It returns the envelope's
// members and kind "" when the envelope is good.
func checkEnvelope(line []byte) (m map[string]json.RawMessage, kind, reason string) {
	malformed := func(format string, args ...any) (map[string]json.RawMessage, string, string) {
		return nil, KindMalformedEnvelope, fmt.Sprintf(format, args...)
	}
	switch t := bytes.TrimLeft(line, " \t\r\n"); t[0] {
	case '{':
	case '[':
		return malformed("a JSON array (batch) where one message was expected")
	default:
		return malformed("not a JSON object")
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return malformed("%v", err)
	}
	var version string
	if v, ok := m["jsonrpc"]; !ok {
		return malformed(`no "jsonrpc" member`)
	} else if json.Unmarshal(v, &version) != nil || version != "2.0" {
		return malformed(`"jsonrpc" is %s, not "2.0"`, clip(v))
	}
	id, hasID := m["id"]
	method, hasMethod := m["method"]
	_, hasResult := m["result"]
	errv, hasError := m["error"]

	if hasMethod { // request or notification
		if jsonType(method) != "string" {
			return malformed(`"method" is not a string`)
		}
		if hasResult || hasError {
			return malformed(`a request with "result" or "error"`)
		}
		if hasID {
			if jsonType(id) == "null" {
				return malformed(`a request with a null "id"`)
			}
			if r := checkID(id); r != "" {
				return malformed("%s", r)
			}
		}
		if params, ok := m["params"]; ok {
			switch jsonType(params) {
			case "object", "array", "null":
			default:
				return malformed(`"params" is not an object`)
			}
		}
		return m, "", ""
	}

	// response
	switch {
	case !hasID:
		return malformed(`neither "method" nor "id"`)
	case hasResult && hasError:
		return malformed(`a response with both "result" and "error"`)
	case !hasResult && !hasError:
		return malformed(`a response with neither "result" nor "error"`)
	}
	if hasError {
		var e struct {
			Code    *json.RawMessage `json:"code"`
			Message *json.RawMessage `json:"message"`
		}
		if jsonType(errv) != "object" || json.Unmarshal(errv, &e) != nil {
			return malformed(`"error" is not an object`)
		}
		if e.Code == nil || !isInteger(*e.Code) {
			return malformed(`"error" has no integer "code"`)
		}
		if e.Message == nil || jsonType(*e.Message) != "string" {
			return malformed(`"error" has no string "message"`)
		}
	}
	if jsonType(id) == "null" {
		if hasError {
			return nil, KindNullIDError, `an error response with a null "id"`
		}
		return malformed(`a result with a null "id"`)
	}
	if r := checkID(id); r != "" {
		return malformed("%s", r)
	}
	return m, "", ""
}

// checkID returns why a non-null id is invalid, or "". MCP ids are strings or
// integers; a fractional number would be truncated when matched to a request.
func checkID(id json.RawMessage) string {
	switch jsonType(id) {
	case "string":
		return ""
	case "number":
		if isInteger(id) {
			return ""
		}
	}
	return fmt.Sprintf(`"id" is %s, not a string or an integer`, clip(id))
}

func isInteger(v json.RawMessage) bool {
	if jsonType(v) != "number" {
		return false
	}
	var f float64
	if json.Unmarshal(v, &f) != nil {
		return false
	}
	return f == math.Trunc(f) && math.Abs(f) <= 1<<53
}

// jsonType returns the JSON type of a valid JSON value.
func jsonType(v json.RawMessage) string { return jsontype.Of(v) }

// clip shortens a JSON value for a reason string.
func clip(v []byte) string {
	if len(v) > 40 {
		return excerpt(v[:40]) + "..."
	}
	return excerpt(v)
}

// excerpt returns the first excerptLen bytes of b with control characters and
// invalid UTF-8 escaped, so that it is safe to print.
func excerpt(b []byte) string { return rpc.Excerpt(b, excerptLen) }
