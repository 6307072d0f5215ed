package options

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// Kind is what a setting takes, and so how each front end reads it. The Go
// type of a value of each kind (in [Values], [Option.Default] and
// [Option.Apply]) is given with it.
type Kind int

// The kinds of settings.
const (
	// Bool is true or false (bool): a flag alone is true.
	Bool Kind = iota + 1
	// Int is a whole number (int).
	Int
	// Int64 is a whole number that may be large (int64): the seed.
	Int64
	// Duration is a Go duration ("30s") or seconds ("30", "2.5")
	// (time.Duration); see [ParseSeconds].
	Duration
	// Size is a byte count as written, "4MiB" or "65536" (string); it is
	// read with [ParseSize] where it is used, so that an error quotes it
	// as it was written.
	Size
	// String is text (string).
	String
	// Path is a file or directory (string): the Action resolves it
	// against its working-directory.
	Path
	// Lines are values that may hold commas ([]string): a flag per value,
	// a line per value in an Action input; in the config file (env) a
	// mapping of KEY: VALUE, read as KEY=VALUE in key order.
	Lines
	// Names are names ([]string): a flag per name; in an Action input or
	// the config file, separated by commas or newlines (or a YAML list).
	Names
	// List is names or globs ([]string), comma-separated in a flag too,
	// which may be repeated.
	List
	// Dimensions are a floor per score dimension (map[string]int): a flag
	// per dimension (--fail-under-robustness), a mapping in the config
	// file.
	Dimensions
	// Command is the server command and its arguments ([]string): after
	// "--" on the command line, split like a shell in the Action input, an
	// argv array for a serve tool. It is no flag and no config key.
	Command
	// FileSection is a section of the config file that only the file has
	// (per-tool, expected, lifecycle), read into config.File's fields and
	// never into [Values].
	FileSection
)

// Option is one setting. A name that is empty means the front end does
// not have the setting.
type Option struct {
	// Key names the setting in this table and in package audit: the
	// flag's name (without its negation), else the config key, else the
	// input's or the parameter's name.
	Key  string
	Kind Kind
	// Default is the value when nothing sets it, of the Go type of
	// Kind; nil when there is none, or when it is no value (the bearer
	// token's default is $MCP_FUZZ_BEARER).
	Default any
	// Range bounds the values of an Int (a Size's in bytes); nil for none.
	// A setting that fills an engine.Config field takes the engine's range
	// (see [engine.RangeOf]), so that front ends and the engine hold it to
	// the same bounds.
	Range *engine.Range
	// Values are the values a String takes when it is one of a few, for
	// the documents and schemas that list them (the engine or the front
	// end checks them, with its own words).
	Values []string

	Flag   Flag   // the command line's flag
	Input  Input  // the GitHub Action's input
	Config string // the config file's key
	Param  Param  // the parameter of mcp-fuzz serve's tools

	// Fields are the fields of engine.Config the setting fills, as an
	// engine.ConfigError names them.
	Fields []string
	// Apply sets v, the setting's value (a Size's as a count of bytes, an
	// int), on c. It is nil for a setting package audit merges itself
	// (lists that add up, the bearer token, the gates) and for a setting
	// that is no engine setting.
	Apply func(c *engine.Config, v any)
}

// Flag is a setting's command-line flag.
type Flag struct {
	// Name is the flag without dashes: "concurrency", "no-box".
	Name string
	// Short is a one-letter name that means the same ("o"), or "".
	Short string
	// Negated flags set a Bool setting to false: --no-box is box: false.
	Negated bool
	// Arg stands for the flag's value in --help ("N", "FILE"); "" for a
	// Bool.
	Arg string
	// Section is the heading of --help the flag is listed under.
	Section string
	// Help says what the flag does in --help: its lines as printed after
	// the flag, without their indentation.
	Help string
}

// Input is a setting's input of the GitHub Action.
type Input struct {
	Name string
	// Default is action.yml's default: of the input. It is "" for most
	// (not given: the config file, then the setting's default, decides).
	Default string
}

// Param is a setting's parameter of mcp-fuzz serve's tools.
type Param struct {
	Name string
	// Default and Max are the serve tools' own default and largest value
	// when they are not the setting's: an agent's audit is bounded. A
	// Duration parameter is given in whole seconds.
	Default, Max any
}

// Spec is how --help spells the flag: "-o, --output FILE".
func (f Flag) Spec() string {
	s := "--" + f.Name
	if f.Short != "" {
		s = "-" + f.Short + ", " + s
	}
	if f.Arg != "" {
		s += " " + f.Arg
	}
	return s
}

// Takes reports whether v is a value of the setting: of the Go type of its
// Kind.
func (o Option) Takes(v any) bool {
	switch o.Kind {
	case Bool:
		_, ok := v.(bool)
		return ok
	case Int:
		_, ok := v.(int)
		return ok
	case Int64:
		_, ok := v.(int64)
		return ok
	case Duration:
		_, ok := v.(time.Duration)
		return ok
	case Size, String, Path:
		_, ok := v.(string)
		return ok
	case Lines, Names, List, Command:
		_, ok := v.([]string)
		return ok
	case Dimensions:
		_, ok := v.(map[string]int)
		return ok
	}
	return false
}

// ParamDefault is the serve tools' default of the setting.
func (o Option) ParamDefault() any {
	if o.Param.Default != nil {
		return o.Param.Default
	}
	return o.Default
}

// DefaultText is the setting's default as its users write it ("15s",
// "4MiB", "false"); "" when it has none.
func (o Option) DefaultText() string {
	if o.Default == nil {
		return ""
	}
	return Text(o.Default)
}

// Text writes a value of a setting as users write it: a duration of
// whole seconds as "60s", anything else as fmt does.
func Text(v any) string {
	if d, ok := v.(time.Duration); ok && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprint(v)
}

// All returns the table, in the order --help lists the flags.
func All() []Option { return slices.Clone(table) }

// Lookup returns the setting of key.
func Lookup(key string) (Option, bool) { return find(func(o Option) bool { return o.Key == key }) }

// ByFlag returns the setting of the command line's flag name (without
// dashes; a short name too).
func ByFlag(name string) (Option, bool) {
	return find(func(o Option) bool { return name != "" && (o.Flag.Name == name || o.Flag.Short == name) })
}

// ByInput returns the setting of the Action's input name.
func ByInput(name string) (Option, bool) {
	return find(func(o Option) bool { return name != "" && o.Input.Name == name })
}

// ByConfig returns the setting of the config file's key.
func ByConfig(key string) (Option, bool) {
	return find(func(o Option) bool { return key != "" && o.Config == key })
}

// ByParam returns the setting of mcp-fuzz serve's parameter name.
func ByParam(name string) (Option, bool) {
	return find(func(o Option) bool { return name != "" && o.Param.Name == name })
}

// ByField returns the setting that fills field, a field of engine.Config.
func ByField(field string) (Option, bool) {
	return find(func(o Option) bool { return slices.Contains(o.Fields, field) })
}

func find(match func(Option) bool) (Option, bool) {
	i := slices.IndexFunc(table, match)
	if i < 0 {
		return Option{}, false
	}
	return table[i], true
}

// ConfigKeys are the keys the config file takes, in the table's order.
func ConfigKeys() []string {
	var out []string
	for _, o := range table {
		if o.Config != "" {
			out = append(out, o.Config)
		}
	}
	return out
}

// InputNames are the Action's inputs in the order action.yml declares
// them, which is the order GitHub shows them in.
func InputNames() []string { return slices.Clone(inputOrder) }

// engineRange is the engine's range of field, for a setting that fills it.
func engineRange(field string) *engine.Range {
	r, ok := engine.RangeOf(field)
	if !ok {
		// A row that states a range the engine does not check would be
		// held to it by no front end: stop every program and test that
		// builds the table.
		panic("options: engine.Config has no range for " + field)
	}
	return &r
}
