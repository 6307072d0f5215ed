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
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// resourceURL is the in-memory address of the document being compiled (an
// input or an output schema: validation errors name it).
const resourceURL = "mem://mcp-fuzz/schema.json"

// ResourceURL is the address a compiled schema has; internal/lint strips it from
// the compiler's messages.
const ResourceURL = resourceURL

// MaxCompileObjects bounds the schemas handed to the validator, whose
// compile time grows quadratically with the number of subschemas. A schema
// with more objects (outside data keywords such as enum) is not compiled.
const MaxCompileObjects = 10000

// errRemoteRef is returned by the loader for every URL outside the document.
var errRemoteRef = errors.New("remote schema references are not fetched")

// Schema is one compiled schema: a tool's inputSchema, or its outputSchema
// (its problems are then worded for an inputSchema and of no use). It is
// safe for concurrent use.
type Schema struct {
	doc  any       // decoded document; an empty object when unusable
	res  *resolver // local $ref resolution over doc
	root *jsonschema.Schema

	problems  []Problem
	truncated bool  // nested deeper than MaxJSONDepth: the deeper parts were cut
	tooLarge  bool  // more than MaxCompileObjects schema objects: not compiled
	err       error // see [Schema.CompileError]

	mu       sync.Mutex // guards compiler and subs
	compiler *jsonschema.Compiler
	subs     map[string]*jsonschema.Schema
}

// Compile decodes and compiles raw. It is the one schema compiler of
// mcp-fuzz: the engine compiles each tool's input and output schema with it
// once, and case generation, output validation and internal/lint all use the
// result. Nothing outside the document is ever fetched.
//
// Compile never panics and never fails: malformed input degrades (a
// non-object schema is treated as an object with no properties) and is
// reported as Problems, which [Schema.Problems] returns too.
func Compile(raw json.RawMessage) (*Schema, []Problem) {
	s := compile(raw)
	return s, s.problems
}

func compile(raw json.RawMessage) (s *Schema) {
	s = &Schema{doc: map[string]any{}}
	if recoverPanics {
		defer func() {
			if r := recover(); r != nil {
				s = &Schema{doc: map[string]any{}, res: newResolver(map[string]any{})}
				s.problems = []Problem{{"internal_error", SevError, "", fmt.Sprintf("schema analysis failed: %v", r)}}
			}
		}()
	}
	doc, ok := s.decode(raw)
	if !ok {
		s.res = newResolver(s.doc)
		return s
	}
	s.doc = doc
	s.res = newResolver(doc)
	s.problems = append(s.problems, lint(doc, s.res)...)
	if s.res.nodes > MaxCompileObjects {
		s.tooLarge = true
		s.problems = append(s.problems, Problem{"schema_too_large", SevWarning, "", fmt.Sprintf(
			"inputSchema has more than %d schema objects; it is not compiled, so forbidden inputs are judged conservatively", MaxCompileObjects)})
		return s
	}
	unsupported, err := s.compile(s.doc)
	switch {
	case s.truncated: // err is about the cut document, not the schema
	case unsupported:
		// What a validator that reads every pattern with Go's syntax says.
		_, _, s.err = compileDoc(s.doc, strictRegexp)
	default:
		s.err = err
	}
	if err != nil {
		if p, ok := s.compileWithoutMetaschema(); ok {
			s.problems = append(s.problems, p)
			return s
		}
		s.problems = append(s.problems, Problem{"schema_does_not_compile", SevError, "", "inputSchema does not compile: " + oneLine(err)})
	}
	return s
}

// Problems returns the problems [Compile] found, in the order it returned
// them.
func (s *Schema) Problems() []Problem { return s.problems }

// Truncated reports that the document nests deeper than [MaxJSONDepth]
// levels: the deeper parts were replaced by true before compiling, so what
// compiled is not the schema as written.
func (s *Schema) Truncated() bool { return s.truncated }

// TooLarge reports that the schema has more than [MaxCompileObjects] schema
// objects and was not compiled.
func (s *Schema) TooLarge() bool { return s.tooLarge }

// CompileError is why the schema as written is not a valid JSON Schema for a
// validator that fetches nothing and reads patterns with Go's regexp syntax.
// It is nil when the schema is valid, and when what was compiled is not the
// schema as written or nothing was ([Schema.Truncated], [Schema.TooLarge], not
// an object). It can be set while [Schema.Compiled] is true, because
// compiling works around two things: a pattern Go's regexp cannot compile
// matches everything, and an unknown "$schema" is read as draft 2020-12.
func (s *Schema) CompileError() error { return s.err }

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
	if _, err := s.compile(trimmed); err != nil {
		return Problem{}, false
	}
	return Problem{"unknown_metaschema", SevWarning, "/$schema", fmt.Sprintf("$schema %q is not a known JSON Schema draft; validated as draft 2020-12", uri)}, true
}

// decode decodes raw and reports whether it is a usable object schema.
func (s *Schema) decode(raw json.RawMessage) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		s.problems = append(s.problems, Problem{"schema_not_object", SevError, "", "inputSchema is missing"})
		return nil, false
	}
	raw, s.truncated = truncateDepth(raw, MaxJSONDepth)
	if s.truncated {
		s.problems = append(s.problems, Problem{"schema_truncated", SevWarning, "",
			fmt.Sprintf("inputSchema nests deeper than %d JSON levels; deeper parts are treated as true (anything allowed)", MaxJSONDepth)})
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		s.problems = append(s.problems, Problem{"schema_invalid_json", SevError, "", "inputSchema is not valid JSON: " + err.Error()})
		return nil, false
	}
	if _, ok := doc.(map[string]any); !ok {
		s.problems = append(s.problems, Problem{"schema_not_object", SevError, "", fmt.Sprintf("inputSchema is %s, not an object", describeType(doc))})
		return nil, false
	}
	return doc, true
}

// compile compiles doc into s. unsupported reports that doc has a pattern
// Go's regexp cannot compile (it then matches everything).
func (s *Schema) compile(doc any) (unsupported bool, err error) {
	var flag atomic.Bool
	c, root, err := compileDoc(doc, lenientRegexp(&flag))
	if err != nil {
		return flag.Load(), err
	}
	s.compiler, s.root, s.subs = c, root, map[string]*jsonschema.Schema{}
	return flag.Load(), nil
}

// compileDoc compiles doc with the regexp engine re. A panic in the compiler
// is an error like any other that makes a schema unusable.
func compileDoc(doc any, re jsonschema.RegexpEngine) (c *jsonschema.Compiler, root *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, root, err = nil, nil, fmt.Errorf("the schema compiler failed: %v", r)
		}
	}()
	c = jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	c.UseRegexpEngine(re)
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, nil, err
	}
	if root, err = c.Compile(resourceURL); err != nil {
		return nil, nil, err
	}
	return c, root, nil
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

// lenientRegexp is the compiler's regexp engine: it compiles patterns with
// Go's regexp and treats the ones Go cannot compile (ECMA-only syntax such as
// lookahead) as matching everything, so one exotic pattern does not leave the
// whole schema unjudged; it then sets unsupported. lint reports such
// patterns as "pattern_unsupported".
func lenientRegexp(unsupported *atomic.Bool) jsonschema.RegexpEngine {
	return func(s string) (jsonschema.Regexp, error) {
		re, err := regexp.Compile(s)
		if err != nil {
			unsupported.Store(true)
			return matchAll(s), nil
		}
		return re, nil
	}
}

// strictRegexp refuses the patterns Go cannot compile, as validators built
// on Go's regexp do.
func strictRegexp(s string) (jsonschema.Regexp, error) { return regexp.Compile(s) }

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
