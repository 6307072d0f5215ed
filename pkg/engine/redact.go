package engine

import (
	"encoding/json"
	"reflect"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
)

// redactWritten redacts, in place, everything v holds that mcp-fuzz will
// write: every string and every JSON value (arguments, capabilities, a
// schema) reachable through v's exported fields, slices, maps (keys too),
// pointers and interfaces, with d's secrets and every secret shape
// replaced by "***" (see [leak.Detector.Redact]). v is a pointer to a
// [report.Report], a [Preview] or a [report.Case].
//
// This is the one place where server text meets the report: the server's
// name and version, its instructions, tool descriptions, the schema text
// that lint messages quote and that cases copy into their arguments, results,
// errors, stderr tails and the checks' details all go through it, and so do
// the reproducers built from the arguments. The run itself works on the
// text as the server sent it (the arguments it sends back are the server's
// own), and finds leaks in it before this redaction, so that a token in a
// result is still a leak finding. The tool names of tools are identifiers
// mcp-fuzz calls the server with: d should keep them (see
// [leak.Detector.Keeping]).
func redactWritten(v any, d *leak.Detector) {
	redactWalk(reflect.ValueOf(v).Elem(), d)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// redactWalk redacts v, which must be settable, in place.
func redactWalk(v reflect.Value, d *leak.Detector) {
	if v.Type() == rawMessageType {
		if raw := json.RawMessage(v.Bytes()); len(raw) > 0 {
			if out := d.RedactReport(raw); string(out) != string(raw) {
				v.SetBytes(out)
			}
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); s != "" {
			if r := d.Redact(s); r != s {
				v.SetString(r)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			redactWalk(v.Elem(), d)
		}
	case reflect.Interface:
		if !v.IsNil() {
			e := reflect.New(v.Elem().Type()).Elem()
			e.Set(v.Elem())
			redactWalk(e, d)
			v.Set(e)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				redactWalk(v.Field(i), d)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactWalk(v.Index(i), d)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			nk := reflect.New(k.Type()).Elem()
			nk.Set(k)
			redactWalk(nk, d)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			redactWalk(e, d)
			if !nk.Equal(k) {
				v.SetMapIndex(k, reflect.Value{})
			}
			v.SetMapIndex(nk, e)
		}
	}
}

// keepingNames is d keeping the names of tools (see [redactWritten]).
func keepingNames(d *leak.Detector, tools []tool) *leak.Detector {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return d.Keeping(names)
}

// redactingProgress wraps progress so that what an event carries is
// redacted as the report will be (see [redactWritten]): a front end prints
// a skip reason as it comes, and an embedder may write the cases. The
// event's case and check are redacted copies; the run's own records stay as
// the server sent them until the report is assembled.
func redactingProgress(progress func(Event), d *leak.Detector) func(Event) {
	if progress == nil {
		return nil
	}
	return func(e Event) {
		e.Reason = d.Redact(e.Reason)
		if e.Case != nil {
			e.Case = redactedCopy(e.Case, d)
		}
		if e.Check != nil {
			e.Check = redactedCopy(e.Check, d)
		}
		progress(e)
	}
}

// redactedCopy returns a redacted deep copy of *v, a report record; *v
// itself when it cannot be copied (never with the report's types).
func redactedCopy[T any](v *T, d *leak.Detector) *T {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	c := new(T)
	if json.Unmarshal(b, c) != nil {
		return v
	}
	redactWritten(c, d)
	return c
}
