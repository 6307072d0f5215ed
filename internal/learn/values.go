// Package learn reads the values a server names (docs/BEHAVIOUR.md#case-generation):
// in an error message, a listing, a schema's other examples, so that a
// valid call that errored on synthetic input can be retried with values
// the server itself gave. It does no I/O: the engine makes the calls and
// hands their text here.
package learn

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

// Bounds of learning a valid call (docs/BEHAVIOUR.md#case-generation): what mcp-fuzz reads of what
// a server says, and how often it asks again.
const (
	// MaxRetries bounds the calls of the tool itself with learned
	// arguments, per tool.
	MaxRetries = 3
	// MaxText is how much of one message or result is searched for
	// values; the rest of a huge or hostile answer is ignored.
	MaxText = 8 << 10
	// MaxValues bounds the values taken from one source.
	MaxValues = 32
	// MaxValue is the longest value tried.
	MaxValue = 512
	// MaxListedDirs bounds the learned directories listed to find a file.
	MaxListedDirs = 2
	// MaxListingTools bounds the read-only listing tools called to learn.
	MaxListingTools = 4
)

// Where learned values come from, as the report's learnedFrom says it.
const (
	FromErrorMessage = "error message"
	FromResources    = "resources/list"
	FromSchema       = "schema " // + the keyword: "schema examples"
	FromTool         = "tool "   // + the tool's name
)

// Candidate is one value to try in one property.
type Candidate struct {
	Value string
	From  string
	// File and Dir say what the value looks like: a listed file, or a
	// directory (listed as one, or a root a listing tool named).
	File, Dir bool
}

// Schema is the top level of an input schema, as learning reads it.
type Schema struct {
	Properties map[string]Prop `json:"properties"`
	Required   []string        `json:"required"`
}

// Prop is a property of a [Schema]: what learning reads of it.
type Prop struct {
	Type     json.RawMessage `json:"type"`
	Examples []any           `json:"examples"`
	Enum     []any           `json:"enum"`
	Default  any             `json:"default"`
}

// IsString reports whether the property's type is, or includes, string.
func (p Prop) IsString() bool {
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return one == "string"
	}
	var many []string
	return json.Unmarshal(p.Type, &many) == nil && slices.Contains(many, "string")
}

// ParseSchema reads the top level of an input schema.
func ParseSchema(schema json.RawMessage) Schema {
	var s Schema
	_ = json.Unmarshal(schema, &s)
	return s
}

// fillable names the words that mark a string property a learned value may
// fill.
var fillable = []string{"path", "file", "dir", "folder", "uri", "url", "id", "name", "key", "root", "resource"}

// PathLike reports whether a property's name says it holds a path.
func PathLike(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"path", "file", "dir", "folder", "root"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Targets are the string properties of s a learned value may
// fill: required ones first, each group by name.
func Targets(s Schema) []string {
	var req, opt []string
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !s.Properties[n].IsString() {
			continue
		}
		ln := strings.ToLower(n)
		if !slices.ContainsFunc(fillable, func(w string) bool { return strings.Contains(ln, w) }) {
			continue
		}
		if slices.Contains(s.Required, n) {
			req = append(req, n)
		} else {
			opt = append(opt, n)
		}
	}
	return append(req, opt...)
}

// Want says what kind of value the tool called name seems to take: +1 a
// file, -1 a directory, 0 unknown. errText is the tool's own error message.
func Want(name, errText string) int {
	e := strings.ToLower(errText)
	switch {
	case strings.Contains(e, "eisdir") || strings.Contains(e, "is a directory"):
		return 1
	case strings.Contains(e, "enotdir") || strings.Contains(e, "not a directory"):
		return -1
	}
	n := strings.ToLower(name)
	for _, w := range []string{"dir", "folder", "tree", "search", "list"} {
		if strings.Contains(n, w) {
			return -1
		}
	}
	if strings.Contains(n, "file") || strings.Contains(n, "read") || strings.Contains(n, "media") {
		return 1
	}
	return 0
}

// EchoesSent reports whether v is one of the string arguments sent, or ends
// with one: an error that quotes the path the tool resolved from our own
// value (".../README.md" for "README.md") names nothing new.
func EchoesSent(base map[string]any, v string) bool {
	for _, a := range base {
		if s, ok := a.(string); ok && (s == v || (len(s) >= 3 && strings.HasSuffix(v, s))) {
			return true
		}
	}
	return false
}

// Fit says how well value suits a property named prop: 0 well (a URI for
// a uri, an absolute path for a path, a plain token for an id or a name),
// 1 maybe, 2 badly.
func Fit(prop, value string) int {
	p := strings.ToLower(prop)
	uri := strings.Contains(value, "://")
	switch {
	case strings.Contains(p, "uri") || strings.Contains(p, "url"):
		if uri {
			return 0
		}
		return 2
	case PathLike(p):
		if strings.HasPrefix(value, "/") {
			return 0
		}
		return 1
	}
	if uri || strings.ContainsAny(value, "/ \t") {
		return 1
	}
	return 0
}

// Rank orders discovered values for a tool that wants kind (+1 files, -1
// directories, 0 either).
func Rank(c Candidate, kind int) int {
	switch {
	case kind > 0 && c.File, kind < 0 && c.Dir:
		return 0
	case kind != 0 && !c.File && !c.Dir:
		return 1
	case kind == 0:
		return 0
	}
	return 2
}

// Fill puts cd's value in the first target property whose current
// value it does not merely repeat, and returns the arguments encoded; nil
// when no property fits.
func Fill(base map[string]any, targets []string, s Schema, cd Candidate) json.RawMessage {
	for _, name := range targets {
		cur, _ := base[name].(string)
		if cur == cd.Value {
			continue
		}
		if strings.HasPrefix(cd.From, FromSchema) && !slices.ContainsFunc(s.Properties[name].Examples, func(e any) bool { return e == cd.Value }) &&
			!slices.ContainsFunc(s.Properties[name].Enum, func(e any) bool { return e == cd.Value }) && s.Properties[name].Default != cd.Value {
			continue // a schema's value belongs to its own property
		}
		args := make(map[string]any, len(base))
		for k, v := range base {
			args[k] = v
		}
		args[name] = cd.Value
		b, err := json.Marshal(args)
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}

// SchemaAlternatives are the string values a top-level property's schema
// names that the generator did not use: its other examples, enum values and
// default.
func SchemaAlternatives(s Schema, base map[string]any) []Candidate {
	var out []Candidate
	for _, name := range Targets(s) {
		p := s.Properties[name]
		add := func(v any, kw string) {
			if str, ok := v.(string); ok && base[name] != str && len(out) < MaxValues {
				out = append(out, Candidate{Value: str, From: FromSchema + kw})
			}
		}
		for _, v := range p.Examples {
			add(v, "examples")
		}
		add(p.Default, "default")
		for _, v := range p.Enum {
			add(v, "enum")
		}
	}
	return out
}

// DirEntries reads a directory listing in the "[FILE] a.txt" / "[DIR] sub"
// style, files first, as paths under dir marked "file:" or "dir:".
func DirEntries(dir, text string) []string {
	var files, dirs []string
	for i, line := range strings.Split(textcut.UTF8(text, MaxText), "\n") {
		if i > 4*MaxValues {
			break
		}
		line = strings.TrimSpace(line)
		for _, p := range []struct{ tag, kind string }{{"[FILE]", "file:"}, {"[DIR]", "dir:"}} {
			name, ok := strings.CutPrefix(line, p.tag)
			name = strings.TrimSpace(name)
			if !ok || name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
				continue
			}
			e := p.kind + path.Join(dir, name)
			if p.kind == "file:" {
				files = append(files, e)
			} else {
				dirs = append(dirs, e)
			}
		}
	}
	return append(files, dirs...)
}

var (
	learnURI     = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s'"\x60<>(),]+`)
	learnPath    = regexp.MustCompile(`(?:^|[\s'"\x60(:,=\[])(/[^\s'"\x60,;()<>\[\]]+)`)
	learnQuoted  = regexp.MustCompile("'([^'\\n]{1,200})'|\"([^\"\\n]{1,200})\"|`([^`\\n]{1,200})`")
	learnOneOf   = regexp.MustCompile(`(?i)(?:one of|allowed values|valid values(?: are)?)\s*:?\s*([^\n]{1,300})`)
	learnEntry   = regexp.MustCompile(`^(file|dir):(.+)$`)
	learnID      = regexp.MustCompile(`\b(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z]{1,12}[-_][0-9][A-Za-z0-9_-]{0,40})\b`)
	learnListSep = regexp.MustCompile(`\s*(?:,|\|| or )\s*`)
)

// Extract finds the values a server's text names: URIs, absolute
// paths, quoted strings, and the items of "one of: a, b" lists, at most
// [MaxValues], in the order they appear, without repeats.
func Extract(text string) []Candidate {
	text = textcut.UTF8(text, MaxText)
	var out []Candidate
	seen := map[string]bool{}
	add := func(v string, file, dir bool) {
		v = strings.TrimRight(strings.TrimSpace(v), ".:;")
		if v == "" || seen[v] || len(out) >= MaxValues || len(v) > MaxValue {
			return
		}
		seen[v] = true
		out = append(out, Candidate{Value: v, File: file, Dir: dir})
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		var doc any
		if json.Unmarshal([]byte(t), &doc) == nil {
			// A JSON answer: the strings under id-, path-, uri- or
			// name-like keys, not every key and word of it.
			jsonValues(doc, "", 0, func(v string) { add(v, hasExt(v), strings.HasSuffix(v, "/")) })
			return out
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 8*MaxValues {
			break
		}
		if m := learnEntry.FindStringSubmatch(line); m != nil {
			add(m[2], m[1] == "file", m[1] == "dir")
			continue
		}
		for _, m := range learnURI.FindAllString(line, MaxValues) {
			add(m, false, false)
		}
		for _, m := range learnPath.FindAllStringSubmatch(line, MaxValues) {
			if !strings.HasPrefix(m[1], "//") {
				add(m[1], hasExt(m[1]), strings.HasSuffix(m[1], "/"))
			}
		}
		for _, m := range learnQuoted.FindAllStringSubmatch(line, MaxValues) {
			add(m[1]+m[2]+m[3], false, false)
		}
		for _, m := range learnID.FindAllString(line, MaxValues) {
			add(m, false, false)
		}
		if m := learnOneOf.FindStringSubmatch(line); m != nil {
			for _, item := range learnListSep.Split(m[1], MaxValues) {
				item = strings.Trim(strings.TrimSpace(item), `'"`+"`[]().")
				if item != "" && !strings.ContainsAny(item, " \t") {
					add(item, false, false)
				}
			}
		}
	}
	return out
}

// jsonValues calls add with each string of doc held under a key a learned
// value may fill (see [fillable]), in document order (object keys sorted),
// down to a bounded depth.
func jsonValues(doc any, key string, depth int, add func(string)) {
	if depth > 8 {
		return
	}
	switch v := doc.(type) {
	case string:
		k := strings.ToLower(key)
		if slices.ContainsFunc(fillable, func(w string) bool { return strings.Contains(k, w) }) {
			add(v)
		}
	case []any:
		for i, e := range v {
			if i == MaxValues {
				break
			}
			jsonValues(e, key, depth+1, add)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			jsonValues(v[k], k, depth+1, add)
		}
	}
}

// hasExt reports whether the last element of p has a file extension.
func hasExt(p string) bool {
	ext := path.Ext(p)
	return len(ext) > 1 && len(ext) <= 6
}
