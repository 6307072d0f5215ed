package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/jsonclip"
	"github.com/mcp-fuzz/mcp-fuzz/internal/jsontype"
)

// schemaURL is the address [casegen.Compile] gives the schema under test,
// and schemaDir the prefix of every other address inside the document. Any
// other URL is outside it and is never fetched.
const schemaURL = casegen.ResourceURL

var schemaDir = schemaURL[:strings.LastIndex(schemaURL, "/")+1]

// maxDetailLen bounds compiler messages quoted in findings.
const maxDetailLen = 300

// schemaInfo is one tool schema, parsed once per [Check], with what
// compiling it (once, by [casegen.Compile]) came to.
type schemaInfo struct {
	// Present is false when the schema is absent or JSON null.
	Present bool
	// Kind is the JSON kind: "object", "array", "string", "number",
	// "boolean", or "invalid" when the bytes are not JSON.
	Kind string
	// Invalid says why the bytes are not JSON when Kind is "invalid".
	Invalid string
	// Obj holds the root members when Kind is "object".
	Obj map[string]json.RawMessage

	// CompileErr says why the schema does not compile ("" when it does, when
	// it stopped only at a remote reference, and when it is beyond the
	// compiler's limits).
	CompileErr string
	// ErrPointer locates the problem inside the schema, "" for the root.
	ErrPointer string
	// RemoteURL is the outside document compiling stopped at.
	RemoteURL string
	// Truncated is set when the schema nests deeper than the compiler keeps
	// (Depth is how deep), TooLarge when it has more schema objects than the
	// compiler takes: either way the schema as written was not compiled.
	Truncated, TooLarge bool
	Depth               int

	// Legacy are the draft-07 and 2019-09 keywords that JSON Schema 2020-12
	// ignores or reads otherwise (see [scanLegacy]).
	Legacy legacyScan

	// HasProps is true when the root has a "properties" member.
	HasProps bool
	// PropsObject is true when that member is a JSON object.
	PropsObject bool
	// Props are the top-level properties in listed order.
	Props []property
}

// property is one top-level property schema.
type property struct {
	Name string
	// Bool is set when the schema is the boolean true or false.
	Bool *bool
	// Obj holds the members when the schema is an object, else nil.
	Obj map[string]json.RawMessage
}

// analyzeSchema reads raw, and what compiling it came to from compiled:
// the result of [casegen.Compile] on raw, or nil to compile raw here.
func analyzeSchema(raw json.RawMessage, compiled *casegen.Schema) *schemaInfo {
	s := &schemaInfo{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s
	}
	s.Present = true
	s.Kind = jsonKind(raw)
	if s.Kind == "invalid" {
		var v json.RawMessage
		if err := json.Unmarshal(raw, &v); err != nil {
			s.Invalid = clip(err.Error())
		}
	}
	if s.Kind != "object" {
		return s
	}
	if err := json.Unmarshal(raw, &s.Obj); err != nil {
		s.Kind, s.Obj, s.Invalid = "invalid", nil, clip(err.Error())
		return s
	}
	if compiled == nil {
		compiled, _ = casegen.Compile(raw)
	}
	s.Truncated, s.TooLarge = compiled.Truncated(), compiled.TooLarge()
	if s.Truncated {
		s.Depth = jsonclip.Depth(raw)
	}
	if err := compiled.CompileError(); err != nil {
		s.explain(err)
	}
	skip := ""
	if s.CompileErr != "" {
		skip = s.ErrPointer // a tuple "items" there is the compile rule's
	}
	s.Legacy = scanLegacy(raw, skip)
	if p, ok := s.Obj["properties"]; ok {
		s.HasProps = true
		members, ok := orderedMembers(p)
		s.PropsObject = ok
		for _, m := range members {
			s.Props = append(s.Props, newProperty(m.Name, m.Value))
		}
	}
	return s
}

// jsonKind names the JSON type of raw, or "invalid".
func jsonKind(raw []byte) string {
	if !json.Valid(raw) {
		return "invalid"
	}
	return jsontype.Of(raw)
}

func newProperty(name string, raw json.RawMessage) property {
	p := property{Name: name}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		b := true
		p.Bool = &b
		return p
	case "false":
		b := false
		p.Bool = &b
		return p
	}
	if jsonKind(raw) == "object" {
		_ = json.Unmarshal(raw, &p.Obj)
	}
	return p
}

// member is one name/value pair of a JSON object.
type member struct {
	Name  string
	Value json.RawMessage
}

// orderedMembers decodes a JSON object keeping the listed order. A repeated
// name keeps its first place and its last value, as encoding/json would.
func orderedMembers(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var ms []member
	seen := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, ok := tok.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if i, dup := seen[name]; dup {
			ms[i].Value = v
			continue
		}
		seen[name] = len(ms)
		ms = append(ms, member{Name: name, Value: v})
	}
	return ms, true
}

// explain turns a compiler error into a message and a pointer.
func (s *schemaInfo) explain(err error) {
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) {
		if !strings.HasPrefix(load.URL, schemaDir) {
			s.RemoteURL = load.URL
			return
		}
		s.CompileErr = clip(fmt.Sprintf("reference %q cannot be resolved inside the schema", strings.TrimPrefix(load.URL, schemaDir)))
		return
	}
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		base := fragment(sve.URL)
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			leaf := ve
			for len(leaf.Causes) > 0 {
				leaf = firstCause(leaf.Causes)
			}
			s.ErrPointer = base + pointer(leaf.InstanceLocation)
			msg := leaf.Error()
			if strings.HasPrefix(msg, "at '") {
				if _, rest, ok := strings.Cut(msg, "': "); ok {
					msg = rest
				}
			}
			s.CompileErr = clip(msg)
			return
		}
		s.ErrPointer = base
		s.CompileErr = clip(sve.Err.Error())
		return
	}
	s.CompileErr = clip(strings.ReplaceAll(strings.ReplaceAll(err.Error(), schemaURL, ""), schemaDir, ""))
}

// firstCause is the cause at the least instance location. The validator
// lists the causes in map order, so the first one would make a schema with
// several errors report a different one from run to run.
func firstCause(causes []*jsonschema.ValidationError) *jsonschema.ValidationError {
	first := causes[0]
	for _, c := range causes[1:] {
		if pointer(c.InstanceLocation) < pointer(first.InstanceLocation) {
			first = c
		}
	}
	return first
}

// fragment returns the JSON pointer in a compiler URL's fragment, unescaped
// from URL form, or "".
func fragment(u string) string {
	_, frag, ok := strings.Cut(u, "#")
	if !ok {
		return ""
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	return frag
}

// pointer builds a JSON pointer (RFC 6901) from unescaped tokens.
func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapeToken(t))
	}
	return sb.String()
}

// escapeToken escapes one JSON pointer token.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// clip flattens a compiler message to one line of bounded length.
func clip(s string) string { return truncate(strings.Join(strings.Fields(s), " "), maxDetailLen) }

// rootType returns the root "type" as a string, and the raw JSON of it.
func (s *schemaInfo) rootType() (string, json.RawMessage) {
	raw, ok := s.Obj["type"]
	if !ok {
		return "", nil
	}
	var t string
	if json.Unmarshal(raw, &t) != nil {
		return "", raw
	}
	return t, raw
}

// stringMember returns a member that is a JSON string.
func stringMember(m map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := m[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
