package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
)

// DefaultPath is read when it exists and no --config is given.
const DefaultPath = ".mcp-fuzz.yml"

// File is the configuration file.
type File struct {
	// Values are the settings of the file that flags also set, by
	// [options.Option.Key] (the file's keys are the table's
	// [options.Option.Config]): defaults of the flags, a flag given on the
	// command line wins. A key the file leaves out, sets to null or to an
	// empty string or list is absent.
	Values options.Values `yaml:"-"`

	// PerTool settings, by tool name.
	PerTool map[string]Tool `yaml:"per-tool"`
	// Expected findings: accepted case or finding ids that do not fail a gate.
	Expected []Expected `yaml:"expected"`
	// Lifecycle pairs the create, read and delete tools of resources for
	// the lifecycle checks (--sequential) when their names do not.
	Lifecycle []Lifecycle `yaml:"lifecycle"`
}

// document is a file as decoded: its sections, and the other keys as
// written, for [Parse] to read by their settings' kinds.
type document struct {
	File     `yaml:",inline"`
	Settings map[string]yaml.Node `yaml:",inline"`
}

// Lifecycle is one resource's tools: see engine.LifecycleGroup.
type Lifecycle struct {
	Resource  string `yaml:"resource"`
	Create    string `yaml:"create"`
	Read      string `yaml:"read"`
	Delete    string `yaml:"delete"`
	ReadArg   string `yaml:"read-arg"`
	DeleteArg string `yaml:"delete-arg"`
}

// Tool holds the settings of one tool.
type Tool struct {
	// Example is realistic valid arguments: the valid call and the base of
	// every mutation (how to remove "synthetic input" false positives).
	Example map[string]any `yaml:"example"`
	Skip    bool           `yaml:"skip"`
	// Include calls the tool even if it is not annotated read-only.
	Include bool     `yaml:"include"`
	Timeout Duration `yaml:"timeout"`
}

// Expected is one accepted finding and why.
type Expected struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason"`
}

// List is a list of names: a YAML sequence, or one string of
// comma-separated names as the flag takes it (`fail-on: crash, hang`,
// `fail-on: none`).
type List []string

// UnmarshalYAML reads a sequence of strings or a comma-separated string.
func (l *List) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = nil
		for _, part := range strings.Split(n.Value, ",") {
			if part = strings.TrimSpace(part); part != "" {
				*l = append(*l, part)
			}
		}
		return nil
	case yaml.SequenceNode:
		var items []string
		if err := n.Decode(&items); err != nil {
			return fmt.Errorf("line %d: want a list of names or one comma-separated string", n.Line)
		}
		*l = items
		return nil
	}
	return fmt.Errorf("line %d: want a list of names or one comma-separated string", n.Line)
}

// Duration is a YAML duration: "30s", "2m", or a number of seconds.
type Duration struct{ time.Duration }

// UnmarshalYAML reads a duration or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	// The one reading of a duration, as flags and Action inputs read it:
	// from a millisecond to a year, never a float that overflows.
	v, err := options.ParseSeconds(n.Value)
	switch {
	case err != nil && n.Kind == yaml.ScalarNode && !isNumber(n):
		if _, perr := time.ParseDuration(n.Value); perr != nil {
			return fmt.Errorf("line %d: %q is not a duration (want 30s, 2m or seconds)", n.Line, n.Value)
		}
		return fmt.Errorf("line %d: duration %q: %v", n.Line, n.Value, err)
	case err != nil:
		return fmt.Errorf("line %d: duration %q: %v", n.Line, n.Value, err)
	}
	d.Duration = v
	return nil
}

// isNumber reports whether n is a YAML number (an int or a float).
func isNumber(n *yaml.Node) bool {
	tag := n.ShortTag()
	return tag == "!!int" || tag == "!!float"
}

// ErrNotFound is returned by [Load] when the file does not exist.
var ErrNotFound = errors.New("config file not found")

// MaxFileBytes is the largest config file read.
const MaxFileBytes = 16 << 20

// Load reads and checks the file at path: a regular file of at most
// [MaxFileBytes], or os.DevNull for no settings at all.
func Load(path string) (*File, error) {
	if path == os.DevNull {
		return &File{}, nil
	}
	b, err := boundedfile.Read(path, MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse decodes a configuration; unknown keys and wrong types are errors
// naming the key and its line.
func Parse(b []byte) (*File, error) {
	if err := checkSize(b); err != nil {
		return nil, err
	}
	var doc document
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var typeErrs []string
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, fmt.Errorf("invalid configuration: %s", shortValues(explainSyntax(syntaxLine(b, err.Error()))))
		}
		typeErrs = te.Errors
	}
	f := &doc.File
	more, err := readSettings(b, f)
	if err != nil {
		return nil, fmt.Errorf("invalid configuration: %s", shortValues(err.Error()))
	}
	if typeErrs = append(typeErrs, more...); len(typeErrs) > 0 {
		slices.SortStableFunc(typeErrs, func(a, b string) int { return cmp.Compare(errLine(a), errLine(b)) })
		msgs := nameKeys(b, typeErrs)
		for i, m := range msgs {
			msgs[i] = shortValues(plainTypes(m))
		}
		return nil, fmt.Errorf("invalid configuration: %s", strings.Join(msgs, "; "))
	}
	for i, e := range f.Expected {
		if e.ID == "" || e.Reason == "" {
			return nil, fmt.Errorf("invalid configuration: expected[%d] needs both id and reason", i)
		}
	}
	for name, t := range f.PerTool {
		if t.Skip && t.Include {
			return nil, fmt.Errorf("invalid configuration: per-tool %q: skip and include both set", name)
		}
	}
	return f, nil
}

// readSettings reads the keys of src, a configuration, that are
// settings of the table into f.Values, each by its kind. It returns the
// decoder's errors of wrong types and unknown keys, worded as the
// decoder words them ("line 2: field timeuot not found in type
// config.File"), for [Parse] to put in the file's terms; err is any other
// error, which stops the reading.
func readSettings(src []byte, f *File) (typeErrs []string, err error) {
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, nil // the decoder has said what is wrong
	}
	for _, kv := range pairs(root.Content[0]) {
		k, v := kv[0], kv[1]
		o, ok := options.ByConfig(k.Value)
		switch {
		case !ok:
			typeErrs = append(typeErrs, fmt.Sprintf("line %d: field %s not found in type config.File", k.Line, k.Value))
			continue
		case o.Kind == options.FileSection:
			continue // a field of File
		}
		val, err := decodeSetting(o.Kind, v)
		var te *yaml.TypeError
		switch {
		case errors.As(err, &te):
			typeErrs = append(typeErrs, te.Errors...)
		case err != nil:
			return nil, err
		case val != nil:
			f.Values.Set(o.Key, val)
		}
	}
	return typeErrs, nil
}

// pairs are the keys and values of the mapping m, those it merges in
// (<<: *anchor) first, so that its own override them as the decoder has
// it.
func pairs(m *yaml.Node) [][2]*yaml.Node {
	var merged, own [][2]*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Tag != "!!merge" {
			own = append(own, [2]*yaml.Node{k, v})
			continue
		}
		from := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			from = v.Content
		}
		for _, a := range from {
			if a.Kind == yaml.AliasNode {
				a = a.Alias
			}
			if a != nil && a.Kind == yaml.MappingNode {
				merged = append(merged, pairs(a)...)
			}
		}
	}
	return append(merged, own...)
}

// decodeSetting decodes n as a value of kind (see [options.Kind]); nil
// for null, an empty string or an empty list, which set nothing.
func decodeSetting(kind options.Kind, n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Tag == "!!null" {
		return nil, nil
	}
	switch kind {
	case options.Bool:
		return decodeAs[bool](n)
	case options.Int:
		return decodeAs[int](n)
	case options.Int64:
		return decodeAs[int64](n)
	case options.Duration:
		d, err := decodeAs[Duration](n)
		if err != nil {
			return nil, err
		}
		return d.Duration, nil
	case options.Lines:
		// KEY: VALUE, read as KEY=VALUE in key order.
		m, err := decodeAs[map[string]string](n)
		if err != nil || len(m) == 0 {
			return nil, err
		}
		lines := make([]string, 0, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			lines = append(lines, k+"="+m[k])
		}
		return lines, nil
	case options.Names, options.List:
		l, err := decodeAs[List](n)
		if err != nil || len(l) == 0 {
			return nil, err
		}
		return []string(l), nil
	case options.Dimensions:
		m, err := decodeAs[map[string]int](n)
		if err != nil || len(m) == 0 {
			return nil, err
		}
		return m, nil
	}
	// Size, String, Path.
	s, err := decodeAs[string](n)
	if err != nil || s == "" {
		return nil, err
	}
	return s, nil
}

// decodeAs decodes n as a T.
func decodeAs[T any](n *yaml.Node) (T, error) {
	var v T
	err := n.Decode(&v)
	return v, err
}

// errLine is the line a decoder's error starts with; 0 for none.
func errLine(msg string) int {
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var lineRE = regexp.MustCompile(`^line (\d+): `)

// quotedValue is a value the YAML decoder quotes in a type error.
var quotedValue = regexp.MustCompile("`[^`]{9,}`")

// shortValues cuts the values a type error quotes to their first three
// characters: the value of an env entry of the wrong type may be a secret.
func shortValues(msg string) string {
	return quotedValue.ReplaceAllStringFunc(msg, func(q string) string {
		r := []rune(q[1 : len(q)-1])
		return "`" + string(r[:min(3, len(r))]) + "…`"
	})
}

// nameKeys adds the key whose value is on the reported line to each decoding
// error ("line 3: cannot unmarshal ..." becomes "line 3: key \"cases\": ...").
func nameKeys(src []byte, errs []string) []string {
	var root yaml.Node
	_ = yaml.Unmarshal(src, &root)
	keys := map[int]string{}
	// named are the paths of the keys on each line.
	named := map[int][]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				named[k.Line] = append(named[k.Line], p)
				if _, seen := keys[v.Line]; !seen || v.Kind == yaml.ScalarNode {
					keys[v.Line] = p
				}
				walk(v, p)
			}
		}
	}
	walk(&root, "")
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e
		if m := lineRE.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			key, ok := keys[line]
			switch {
			case fieldNotFound.MatchString(e):
				out[i] = unknownKey(e, named[line])
			case ok:
				out[i] = fmt.Sprintf("line %d: key %q: %s", line, key, strings.TrimPrefix(e, m[0]))
			}
		}
	}
	return out
}

// cannotUnmarshal is the decoder's error for a value of the wrong kind:
// "cannot unmarshal !!seq into config.File", "cannot unmarshal !!str `abc`
// into int64".
var cannotUnmarshal = regexp.MustCompile("cannot unmarshal !!(\\w+)( `[^`]*`)? into (\\S+)$")

// plainTypes rewords a cannotUnmarshal error in the file's terms, not Go's:
// "want a whole number, got a string `abc`". Other messages, and types it
// has no words for, are returned as they are.
func plainTypes(msg string) string {
	m := cannotUnmarshal.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	tag, value, goType := msg[m[2]:m[3]], "", msg[m[6]:m[7]]
	if m[4] >= 0 {
		value = msg[m[4]:m[5]]
	}
	got, ok := yamlKinds[tag]
	if !ok {
		return msg
	}
	var want string
	switch goType = strings.TrimLeft(goType, "*"); {
	case strings.HasPrefix(goType, "config."), strings.HasPrefix(goType, "map["):
		want = "a mapping (key: value)"
	case strings.HasPrefix(goType, "[]"):
		want = "a list"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		want = "a whole number"
	case strings.HasPrefix(goType, "float"):
		want = "a number"
	case goType == "bool":
		want = "true or false"
	case goType == "string":
		want = "a string"
	default:
		return msg
	}
	return msg[:m[0]] + "want " + want + ", got " + got + value
}

// yamlKinds names the YAML tags of a cannotUnmarshal error.
var yamlKinds = map[string]string{
	"seq": "a list", "map": "a mapping", "str": "a string", "int": "a number",
	"float": "a number", "bool": "a boolean", "null": "null", "binary": "binary data",
	"timestamp": "a timestamp",
}

// fieldNotFound is the decoder's error for an unknown key.
var fieldNotFound = regexp.MustCompile(`^line (\d+): field (.*) not found in type config\.(\w+)$`)

// keysOf are the keys a section of the file takes, by the name of its Go
// type (as the decoder's error names it).
var keysOf = map[string][]string{
	"File":      options.ConfigKeys(),
	"Tool":      yamlKeys(Tool{}),
	"Expected":  yamlKeys(Expected{}),
	"Lifecycle": yamlKeys(Lifecycle{}),
}

// yamlKeys lists the keys of struct v as YAML spells them.
func yamlKeys(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			out = append(out, k)
		}
	}
	return out
}

// unknownKey rewords the decoder's "line 2: field timeuot not found in
// type config.File" in the file's terms: `unknown key "timeuot" on line
// 2; did you mean "timeout"?`, the key spelled with the keys above it
// ("per-tool.search.exampel") when one of paths, those of the keys on its
// line, ends with it. Other messages are returned as they are.
func unknownKey(msg string, paths []string) string {
	m := fieldNotFound.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	key := m[2]
	for _, p := range paths {
		if strings.HasSuffix(p, "."+key) {
			key = p
			break
		}
	}
	return fmt.Sprintf("unknown key %q on line %s%s", key, m[1], suggest.Hint(m[2], keysOf[m[3]]))
}

// explainSyntax adds what the YAML scanner's terse message means, when it
// says too little to act on: the scanner reports the end of the file, and
// only while scanning a quoted scalar, for a quote never closed ([syntaxLine]
// has put the line where the quoted string starts).
func explainSyntax(msg string) string {
	if strings.HasSuffix(msg, "found unexpected end of stream") {
		return msg + " (a quoted string that starts on this line is never closed)"
	}
	return msg
}

// yamlLine is the line number a YAML syntax error starts with.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxLine puts the right line into the YAML syntax error msg of src.
// The decoder numbers the lines of its parser's errors (as opposed to its
// scanner's) from 0, or names the line where the enclosing block began:
// "cases: 5\n- x" is refused on "line 1". The line where the problem is
// found is the first whose prefix of src (the lines up to it) fails to
// parse with the same problem; msg is returned as it is when none does.
func syntaxLine(src []byte, msg string) string {
	problem := yamlLine.ReplaceAllString(msg, "yaml: ")
	lines := bytes.SplitAfter(src, []byte("\n"))
	if len(lines) > maxSyntaxLines || len(src) > maxSyntaxBytes {
		return msg // bounded work: a parse per line
	}
	end := 0
	for i, l := range lines {
		end += len(l)
		var v any
		err := yaml.Unmarshal(src[:end], &v)
		if err == nil {
			continue
		}
		if yamlLine.ReplaceAllString(err.Error(), "yaml: ") == problem {
			return fmt.Sprintf("yaml: line %d: %s", i+1, strings.TrimPrefix(problem, "yaml: "))
		}
	}
	return msg
}

// maxSyntaxLines and maxSyntaxBytes bound the files [syntaxLine] parses
// prefixes of: a config file is a few dozen lines.
const (
	maxSyntaxLines = 2000
	maxSyntaxBytes = 256 << 10
)

// Bounds of a file's shape, far past any real configuration (a per-tool
// key for each of a few thousand tools): the YAML decoder checks a
// mapping's keys for duplicates pairwise, so a 16 MiB file of 200,000 env
// entries took minutes, and an alias repeats that work for every use.
const (
	maxMappingKeys = 10_000
	maxNodes       = 200_000
)

// checkSize refuses a file with a mapping of more than maxMappingKeys keys
// or more than maxNodes nodes, counting an alias as the nodes it stands
// for. Parsing into nodes is linear; a syntax error is left to the
// decoder, which says it better.
func checkSize(b []byte) error {
	var root yaml.Node
	if yaml.Unmarshal(b, &root) != nil {
		return nil
	}
	nodes := 0
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n == nil {
			return nil
		}
		if nodes++; nodes > maxNodes {
			return fmt.Errorf("invalid configuration: over %d values (aliases counted as what they stand for): not a configuration file", maxNodes)
		}
		if n.Kind == yaml.MappingNode && len(n.Content)/2 > maxMappingKeys {
			return fmt.Errorf("invalid configuration: line %d: a mapping of %d keys, over %d", n.Line, len(n.Content)/2, maxMappingKeys)
		}
		if n.Kind == yaml.AliasNode {
			return walk(n.Alias)
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(&root)
}
