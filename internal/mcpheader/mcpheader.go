package mcpheader

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Prefix starts the name of every parameter header.
const Prefix = "Mcp-Param-"

// MaxSafeInteger bounds the integers a parameter header carries: beyond
// ±(2^53−1) a value no longer survives a trip through a float64.
const MaxSafeInteger = 1<<53 - 1

// MaxValue is the longest header value [Headers] sends, in bytes. A longer
// argument (an oversize test string) is left without its header: servers
// and proxies commonly refuse header fields of more than a few KiB with
// HTTP 431 before any MCP code runs, while a missing header is refused
// with HeaderMismatch (-32020), an answer the audit can judge.
const MaxValue = 4096

// maxDepth bounds how deep [Parse] walks a schema; maxProblems how many
// problems it reports.
const (
	maxDepth    = 64
	maxProblems = 20
)

// Binding ties the property at Path to the header Prefix+Name.
type Binding struct {
	// Path is the chain of property names from the schema root.
	Path []string
	// Name is the x-mcp-header value, an HTTP token.
	Name string
}

// Problem is one invalid x-mcp-header annotation.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the annotation in the
	// input schema, "" for the schema itself: "/properties/region/x-mcp-header".
	Pointer string
	Message string
}

// Parse returns the bindings of a tool's input schema and the problems of
// its annotations; a schema with any problem is an invalid tool definition,
// and its bindings must not be used. A schema that is no JSON object has
// neither.
func Parse(schema json.RawMessage) ([]Binding, []Problem) {
	var root any
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	if d.Decode(&root) != nil {
		return nil, nil
	}
	w := &walker{seen: map[string]string{}}
	w.walk(root, "", nil, true, 0)
	if w.more > 0 {
		w.problems = append(w.problems, Problem{Pointer: "", Message: fmt.Sprintf("and %d more invalid x-mcp-header annotations", w.more)})
	}
	return w.bindings, w.problems
}

type walker struct {
	bindings []Binding
	problems []Problem
	more     int
	seen     map[string]string // lower-case name -> pointer of its first use
}

// dataKeywords hold instances, not schemas: an "x-mcp-header" inside a
// default value is no annotation.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true, "example": true}

// walk visits v at pointer ptr. path is the chain of property names that
// led to it; reachable is true while that chain went through "properties"
// only, from the root.
func (w *walker) walk(v any, ptr string, path []string, reachable bool, depth int) {
	if depth > maxDepth {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		if ann, ok := v["x-mcp-header"]; ok {
			w.annotation(v, ann, ptr, path, reachable)
		}
		for _, k := range sortedKeys(v) {
			switch {
			case k == "x-mcp-header" || dataKeywords[k]:
			case k == "properties":
				props, ok := v[k].(map[string]any)
				if !ok {
					continue
				}
				for _, name := range sortedKeys(props) {
					w.walk(props[name], ptr+"/properties/"+escape(name), append(slices.Clip(path), name), reachable, depth+1)
				}
			default:
				w.walk(v[k], ptr+"/"+escape(k), path, false, depth+1)
			}
		}
	case []any:
		for i, e := range v {
			w.walk(e, ptr+"/"+strconv.Itoa(i), path, false, depth+1)
		}
	}
}

// annotation checks the x-mcp-header annotation ann of the schema s.
func (w *walker) annotation(s map[string]any, ann any, ptr string, path []string, reachable bool) {
	at := ptr + "/x-mcp-header"
	name, isString := ann.(string)
	switch {
	case !isString || name == "":
		w.problem(at, "x-mcp-header must be a non-empty string")
	case !ValidName(name):
		w.problem(at, fmt.Sprintf("x-mcp-header %s is not an HTTP header name: %s", Quote(name), badChar(name)))
	case !reachable:
		w.problem(at, fmt.Sprintf("x-mcp-header %s is not on a statically reachable property (only a chain of \"properties\" from the root; not under items, anyOf, oneOf, allOf, not, if/then/else, $ref or $defs)", Quote(name)))
	case len(path) == 0:
		w.problem(at, fmt.Sprintf("x-mcp-header %s is on the schema root, not on a property", Quote(name)))
	default:
		t, _ := s["type"].(string)
		if t != "string" && t != "integer" && t != "boolean" {
			shown := "no type"
			if t != "" {
				shown = "type " + Quote(t)
			} else if s["type"] != nil {
				b, _ := json.Marshal(s["type"])
				shown = "type " + Quote(string(b))
			}
			w.problem(at, fmt.Sprintf("x-mcp-header %s is on a property with %s: only integer, string and boolean values can be headers (not number, object or array)", Quote(name), shown))
			return
		}
		if t == "integer" && !safeBounds(s) {
			w.problem(at, fmt.Sprintf("x-mcp-header %s is on an integer property whose bounds leave no value within ±(2^53−1)", Quote(name)))
			return
		}
		lower := strings.ToLower(name)
		if first, dup := w.seen[lower]; dup {
			w.problem(at, fmt.Sprintf("x-mcp-header %s repeats the header of %s (names are case-insensitive)", Quote(name), first))
			return
		}
		w.seen[lower] = ptr
		w.bindings = append(w.bindings, Binding{Path: path, Name: name})
	}
}

func (w *walker) problem(ptr, msg string) {
	if len(w.problems) == maxProblems {
		w.more++
		return
	}
	w.problems = append(w.problems, Problem{Pointer: ptr, Message: msg})
}

// safeBounds reports whether an integer schema's minimum and maximum allow
// a value within ±MaxSafeInteger.
func safeBounds(s map[string]any) bool {
	num := func(k string) (float64, bool) {
		n, ok := s[k].(json.Number)
		if !ok {
			return 0, false
		}
		f, err := n.Float64()
		return f, err == nil
	}
	if lo, ok := num("minimum"); ok && lo > MaxSafeInteger {
		return false
	}
	if hi, ok := num("maximum"); ok && hi < -MaxSafeInteger {
		return false
	}
	return true
}

// ValidName reports whether name is an HTTP token (RFC 9110 tchar): the
// only names that go into a header or a reproducer.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isTChar(name[i]) {
			return false
		}
	}
	return true
}

func isTChar(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// badChar names the first character of name that is no tchar.
func badChar(name string) string {
	for _, r := range name {
		if r >= 0x80 || !isTChar(byte(r)) {
			return fmt.Sprintf("%q is not allowed (letters, digits and !#$%%&'*+-.^_`|~ only)", r)
		}
	}
	return ""
}

// maxQuoted bounds a server-supplied name quoted in a message.
const maxQuoted = 64

// Quote is name as a Go string literal, cut to maxQuoted bytes: control
// characters, CR and LF are escapes, never raw.
func Quote(name string) string {
	if len(name) > maxQuoted {
		name = strings.ToValidUTF8(name[:maxQuoted], "") + "…"
	}
	return strconv.Quote(name)
}

// escape escapes a JSON pointer token.
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Headers returns the parameter headers of a call with arguments args: for
// each binding whose argument is present and not null, its value (see
// [Value]). The value's own JSON type decides its form, not the schema's:
// a fuzzed wrong-typed string or boolean is mirrored as it is, so that a
// server's header check lets it through to the tool's own validation. An
// argument with no header form (an object, an array, a fraction, an integer
// beyond ±(2^53−1), a value over [MaxValue]) gets no header; a conforming
// server refuses such a call with HeaderMismatch.
func Headers(bindings []Binding, args json.RawMessage) http.Header {
	var root map[string]json.RawMessage
	if json.Unmarshal(args, &root) != nil || root == nil {
		return nil
	}
	var h http.Header
	for _, b := range bindings {
		raw, ok := lookup(root, b.Path)
		if !ok || !ValidName(b.Name) {
			continue
		}
		if v, ok := Value(raw); ok {
			if h == nil {
				h = http.Header{}
			}
			h.Set(Prefix+b.Name, v)
		}
	}
	return h
}

// lookup returns the value at path in args; not ok when it is absent or
// null.
func lookup(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur := args
	for i, name := range path {
		raw, ok := cur[name]
		if !ok {
			return nil, false
		}
		if i == len(path)-1 {
			return raw, string(bytes.TrimSpace(raw)) != "null"
		}
		cur = nil
		if json.Unmarshal(raw, &cur) != nil || cur == nil {
			return nil, false
		}
	}
	return nil, false
}

// Value is the header form of one argument: a string as it is, an integer
// in decimal, a boolean as true or false; a value that is no plain visible
// ASCII (or is empty, or has space at an edge, or looks like the encoded
// form itself) in the form =?base64?…?=. ok is false when the value has no
// header form.
func Value(raw json.RawMessage) (string, bool) {
	s, ok := plain(raw)
	if !ok {
		return "", false
	}
	if needsBase64(s) {
		s = "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
	}
	if len(s) > MaxValue {
		return "", false
	}
	return s, true
}

// plain is the value of raw as text, before encoding.
func plain(raw json.RawMessage) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		n, ok := integer(v)
		return strconv.FormatInt(n, 10), ok
	}
	return "", false
}

// integer is n when it is an integer within ±MaxSafeInteger (1e3 and 2.0
// are integers, as a JSON parser sees them).
func integer(n json.Number) (int64, bool) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, i >= -MaxSafeInteger && i <= MaxSafeInteger
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > MaxSafeInteger {
		return 0, false
	}
	return int64(f), true
}

// needsBase64 reports whether s goes in the encoded form. An empty value
// does too: an empty header field is the same as none to most servers
// (go-sdk's among them), which would then refuse the call as missing it.
func needsBase64(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}

// Other is a header value for raw that names another value of the same
// type, for a check that the server compares the header with the body: the
// next integer, the other boolean, another string.
func Other(raw json.RawMessage) (string, bool) {
	s, ok := plain(raw)
	if !ok {
		return "", false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	_ = d.Decode(&v)
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(!v), true
	case json.Number:
		n, _ := integer(v)
		if n == MaxSafeInteger {
			return strconv.FormatInt(n-1, 10), true
		}
		return strconv.FormatInt(n+1, 10), true
	}
	if s == "mcp-fuzz-other-value" {
		return "mcp-fuzz-another-value", true
	}
	return "mcp-fuzz-other-value", true
}

// Mismatch picks the first binding whose argument in args has a header
// form and returns its header name with a value that contradicts the body
// (see [Other]); ok is false when no binding has one.
func Mismatch(bindings []Binding, args json.RawMessage) (header, value string, ok bool) {
	var root map[string]json.RawMessage
	if json.Unmarshal(args, &root) != nil || root == nil {
		return "", "", false
	}
	for _, b := range bindings {
		raw, found := lookup(root, b.Path)
		if !found || !ValidName(b.Name) {
			continue
		}
		if _, ok := Value(raw); !ok {
			continue
		}
		if v, ok := Other(raw); ok {
			return http.CanonicalHeaderKey(Prefix + b.Name), v, true
		}
	}
	return "", "", false
}
