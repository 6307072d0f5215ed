package casegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// resourceURL is the in-memory address of the document being compiled (an
// input or an output schema: validation errors name it).
const resourceURL = "mem://mcp-fuzz/schema.json"

// maxCompileObjects bounds the schemas handed to the validator, whose
// compile time grows quadratically with the number of subschemas.
const maxCompileObjects = 10000

// errRemoteRef is returned by the loader for every URL outside the document.
var errRemoteRef = errors.New("remote schema references are not fetched")

// Schema is one tool's compiled inputSchema. It is safe for concurrent use.
type Schema struct {
	doc  any       // decoded document; an empty object when unusable
	res  *resolver // local $ref resolution over doc
	root *jsonschema.Schema

	mu       sync.Mutex // guards compiler and subs
	compiler *jsonschema.Compiler
	subs     map[string]*jsonschema.Schema
}

// Compile decodes and compiles raw. It never panics and never fails: malformed
// input degrades (a non-object schema is treated as an object with no
// properties) and is reported as Problems.
func Compile(raw json.RawMessage) (s *Schema, problems []Problem) {
	s = &Schema{doc: map[string]any{}}
	if recoverPanics {
		defer func() {
			if r := recover(); r != nil {
				s = &Schema{doc: map[string]any{}, res: newResolver(map[string]any{})}
				problems = append(problems, Problem{"internal_error", SevError, "", fmt.Sprintf("schema analysis failed: %v", r)})
			}
		}()
	}
	doc, p, ok := decodeSchema(raw)
	problems = append(problems, p...)
	if !ok {
		s.res = newResolver(s.doc)
		return s, problems
	}
	s.doc = doc
	s.res = newResolver(doc)
	problems = append(problems, lint(doc, s.res)...)
	if s.res.nodes > maxCompileObjects {
		problems = append(problems, Problem{"schema_too_large", SevWarning, "", fmt.Sprintf(
			"inputSchema has more than %d schema objects; it is not compiled, so forbidden inputs are judged conservatively", maxCompileObjects)})
		return s, problems
	}
	if err := s.compile(s.doc); err != nil {
		if p, ok := s.compileWithoutMetaschema(); ok {
			return s, append(problems, p)
		}
		problems = append(problems, Problem{"schema_does_not_compile", SevError, "", "inputSchema does not compile: " + oneLine(err)})
	}
	return s, problems
}

// compileWithoutMetaschema retries without "$schema" when that names a
// metaschema the validator does not ship (it would have to be fetched). The
// schema is then read as the default draft, 2020-12.
func (s *Schema) compileWithoutMetaschema() (Problem, bool) {
	m := s.doc.(map[string]any)
	uri, ok := m["$schema"].(string)
	if !ok {
		return Problem{}, false
	}
	trimmed := make(map[string]any, len(m))
	for k, v := range m {
		if k != "$schema" {
			trimmed[k] = v
		}
	}
	if err := s.compile(trimmed); err != nil {
		return Problem{}, false
	}
	return Problem{"unknown_metaschema", SevWarning, "/$schema", fmt.Sprintf("$schema %q is not a known JSON Schema draft; validated as draft 2020-12", uri)}, true
}

// decodeSchema decodes raw and reports whether it is a usable object schema.
func decodeSchema(raw json.RawMessage) (any, []Problem, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, []Problem{{"schema_not_object", SevError, "", "inputSchema is missing"}}, false
	}
	var problems []Problem
	raw, cut := truncateDepth(raw, maxJSONDepth)
	if cut {
		problems = append(problems, Problem{"schema_truncated", SevWarning, "",
			fmt.Sprintf("inputSchema nests deeper than %d JSON levels; deeper parts are treated as true (anything allowed)", maxJSONDepth)})
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, append(problems, Problem{"schema_invalid_json", SevError, "", "inputSchema is not valid JSON: " + err.Error()}), false
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, append(problems, Problem{"schema_not_object", SevError, "", fmt.Sprintf("inputSchema is %s, not an object", describeType(doc))}), false
	}
	return doc, problems, true
}

func (s *Schema) compile(doc any) error {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	c.UseRegexpEngine(lenientRegexp)
	if err := c.AddResource(resourceURL, doc); err != nil {
		return err
	}
	root, err := c.Compile(resourceURL)
	if err != nil {
		return err
	}
	s.compiler, s.root, s.subs = c, root, map[string]*jsonschema.Schema{}
	return nil
}

// Compiled reports whether the real validator could compile the schema. When
// it could not, [Schema.Validate] cannot judge and returns nil.
func (s *Schema) Compiled() bool { return s != nil && s.root != nil }

// Validate runs the JSON Schema validator on args. It returns nil when args are
// valid, and also when the schema did not compile (it cannot judge).
func (s *Schema) Validate(args json.RawMessage) error {
	if !s.Compiled() {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	return s.validateValue(v)
}

func (s *Schema) validateValue(v any) error {
	if !s.Compiled() {
		return nil
	}
	return s.root.Validate(v)
}

// validateAt validates v against the subschema at ptr. judged is false when
// that cannot be done (no compiled schema, or the location does not compile).
func (s *Schema) validateAt(ptr string, v any) (valid, judged bool) {
	if !s.Compiled() {
		return false, false
	}
	s.mu.Lock()
	sub, seen := s.subs[ptr]
	if !seen {
		var err error
		sub, err = s.compiler.Compile(resourceURL + "#" + (&url.URL{Fragment: ptr}).EscapedFragment())
		if err != nil {
			sub = nil
		}
		s.subs[ptr] = sub
	}
	s.mu.Unlock()
	if sub == nil {
		return false, false
	}
	return sub.Validate(v) == nil, true
}

// refuseLoader is the compiler's loader: nothing outside the in-memory
// document is ever fetched (the metaschemas ship inside the library).
type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%w: %s", errRemoteRef, u)
}

// lenientRegexp compiles patterns with Go's regexp and treats the ones Go
// cannot compile (ECMA-only syntax such as lookahead) as matching everything,
// so one exotic pattern does not leave the whole schema unjudged. lint reports
// such patterns as "pattern_unsupported".
func lenientRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return matchAll(s), nil
	}
	return re, nil
}

type matchAll string

func (m matchAll) String() string          { return string(m) }
func (m matchAll) MatchString(string) bool { return true }

// oneLine condenses a (possibly multi-line, nested) error into one line.
func oneLine(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := ve
		for len(leaf.Causes) > 0 {
			leaf = leaf.Causes[0]
		}
		return "at '" + pointer(leaf.InstanceLocation) + "': " + flatten(leafMessage(leaf))
	}
	return flatten(err.Error())
}

func leafMessage(e *jsonschema.ValidationError) string {
	if out := e.BasicOutput(); out.Error != nil {
		return out.Error.String()
	}
	return e.Error()
}

func flatten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func describeType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// recoverPanics turns unexpected panics in Compile and Generate into a
// degraded result. Tests switch it off so that fuzzing finds the panics.
var recoverPanics = true
