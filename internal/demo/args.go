package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/jsontype"
)

// args checks tool arguments the way a careful hand-written tool does,
// stopping at the first problem and describing it in words a model can act
// on. Call its getters, then [args.closed] for tools with
// additionalProperties: false, then [args.err].
type args struct {
	tool    string
	fields  map[string]json.RawMessage
	seen    map[string]bool
	problem error
}

// readArgs decodes raw tool arguments. Absent arguments count as {}.
func readArgs(tool string, raw json.RawMessage) *args {
	a := &args{tool: tool, fields: map[string]json.RawMessage{}, seen: map[string]bool{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return a
	}
	if raw[0] != '{' {
		a.problem = fmt.Errorf("arguments must be a JSON object, got %s", jsonKind(raw))
		return a
	}
	if err := json.Unmarshal(raw, &a.fields); err != nil {
		a.problem = fmt.Errorf("arguments are not a valid JSON object: %v", err)
	}
	return a
}

func (a *args) fail(format string, v ...any) {
	if a.problem == nil {
		a.problem = fmt.Errorf(format, v...)
	}
}

// field returns the raw value of name, or nil when it is absent (or an
// earlier check failed). A missing required field is a problem.
func (a *args) field(name string, required bool, hint string) json.RawMessage {
	if a.problem != nil {
		return nil
	}
	a.seen[name] = true
	v, ok := a.fields[name]
	if !ok {
		if required {
			a.fail("%q is required: %s", name, hint)
		}
		return nil
	}
	return v
}

// integer reads an integer property bounded by [min, max].
func (a *args) integer(name string, required bool, minimum, maximum int64, hint string) int64 {
	v := a.field(name, required, hint)
	if v == nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if jsonKind(v) != "number" || err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		a.fail("%q must be an integer from %d to %d, got %s: %s", name, minimum, maximum, describe(v), hint)
		return 0
	}
	if f < float64(minimum) || f > float64(maximum) {
		a.fail("%q must be from %d to %d, got %s: %s", name, minimum, maximum, v, hint)
		return 0
	}
	return int64(f)
}

// boolean reads a boolean property.
func (a *args) boolean(name string, required bool, hint string) bool {
	v := a.field(name, required, hint)
	if v == nil {
		return false
	}
	var b bool
	if jsonKind(v) != "boolean" || json.Unmarshal(v, &b) != nil {
		a.fail("%q must be true or false, got %s: %s", name, describe(v), hint)
	}
	return b
}

// str reads a string property of minLen to maxLen characters.
func (a *args) str(name string, required bool, minLen, maxLen int, hint string) string {
	v := a.field(name, required, hint)
	if v == nil {
		return ""
	}
	var s string
	if jsonKind(v) != "string" || json.Unmarshal(v, &s) != nil {
		a.fail("%q must be a string, got %s: %s", name, describe(v), hint)
		return ""
	}
	if n := utf8.RuneCountInString(s); n < minLen || n > maxLen {
		a.fail("%q must be %d to %d characters long, got %d: %s", name, minLen, maxLen, n, hint)
		return ""
	}
	return s
}

// pattern reads a required string property that must match re.
func (a *args) pattern(name string, re *regexp.Regexp, hint string) string {
	s := a.str(name, true, 0, math.MaxInt, hint)
	if a.problem == nil && !re.MatchString(s) {
		a.fail("%q must match %s, got %q: %s", name, re, truncate(s, 40), hint)
	}
	return s
}

// enum reads a required string property that must be one of values.
func (a *args) enum(name string, values ...string) string {
	hint := "use one of " + strings.Join(values, ", ")
	s := a.str(name, true, 0, math.MaxInt, hint)
	if a.problem == nil && !slices.Contains(values, s) {
		a.fail("%q must be one of %s, got %q", name, strings.Join(values, ", "), truncate(s, 40))
	}
	return s
}

// closed reports every property that no getter asked for, as a schema with
// additionalProperties: false demands.
func (a *args) closed() {
	if a.problem != nil {
		return
	}
	var extra []string
	for name := range a.fields {
		if !a.seen[name] {
			extra = append(extra, strconv.Quote(truncate(name, 40)))
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		known := make([]string, 0, len(a.seen))
		for name := range a.seen {
			known = append(known, name)
		}
		sort.Strings(known)
		a.fail("unknown argument %s: %s accepts only %s", strings.Join(extra, ", "), a.tool, strings.Join(known, ", "))
	}
}

// err returns the first problem found, prefixed with the tool name.
func (a *args) err() error {
	if a.problem == nil {
		return nil
	}
	return fmt.Errorf("invalid arguments for %s: %w", a.tool, a.problem)
}

// jsonKind names the JSON type of a raw value ("nothing" when absent).
func jsonKind(v json.RawMessage) string {
	if k := jsontype.Of(v); k != "" {
		return k
	}
	return "nothing"
}

// describe renders a raw value for an error message, shortened.
func describe(v json.RawMessage) string {
	if jsonKind(v) == "null" {
		return "null"
	}
	return fmt.Sprintf("%s %s", jsonKind(v), truncate(string(v), 40))
}

// truncate shortens s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
