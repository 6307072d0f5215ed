package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/security"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Settings are an audit's options as a front end read them: the server
// command, and the settings of the table (package options) it was given.
type Settings struct {
	// Command is the server command and its arguments: what follows --
	// on the command line, the Action's input command, a serve tool's
	// command.
	Command []string
	// Given are the settings the front end was given, by their key in the
	// table, each of the Go type of its kind (see [options.Kind]). A key
	// that is absent, or an empty string or list, is not given: the config
	// file, then the default, decides. Keys in messages are the table's,
	// spelled for the user by [Names].
	Given options.Values
	// NoDefaultGate leaves a run without gate settings ungated (the demo,
	// whose findings are on purpose) instead of failing on critical ones.
	NoDefaultGate bool
}

// Names spells a setting's key (see [Settings.Given]; "fail-under-DIM" for
// a dimension's floor) as the front end's users write it: "--timeout",
// "input timeout".
type Names func(key string) string

// FlagNames spells keys as the command line's flags.
func FlagNames(key string) string {
	if key == "command" {
		return "a server command after --"
	}
	if o, ok := options.Lookup(key); ok && o.Flag.Name != "" {
		return "--" + o.Flag.Name
	}
	return "--" + key
}

// Describe spells err for the user: a [engine.ConfigError] with the front
// end's option names, anything else as it is.
func Describe(err error, n Names) string {
	var sp *spelledError
	if errors.As(err, &sp) {
		return sp.msg
	}
	var ce *engine.ConfigError
	if errors.As(err, &ce) {
		return ce.Describe(func(field string) string {
			if o, ok := options.ByField(field); ok {
				return n(o.Key)
			}
			return field
		})
	}
	return err.Error()
}

// spelledError is a configuration error the engine found during the run,
// already spelled as [Build] spells the options (a file's setting as the
// file's key), with the engine's error inside for errors.Is.
type spelledError struct {
	msg string
	err error
}

func (e *spelledError) Error() string { return e.msg }
func (e *spelledError) Unwrap() error { return e.err }

// configKey is key's key in the config file.
func configKey(key string) string {
	if o, ok := options.Lookup(key); ok && o.Config != "" {
		return o.Config
	}
	return key
}

// Build applies the config file to s where s is silent, fills in the
// defaults and validates everything, so that the returned Options run as
// they are. lookup reads the environment (MCP_FUZZ_BEARER); names spells
// option keys in error messages. The engine's own checks run here too, so a
// front end reports every configuration error before starting anything.
//
// A setting of the table that applies to the engine takes the front end's
// value, else the file's, else its default, and is held to its range; the
// lists of environment variables, secrets and skip patterns add up the
// front end's and the file's.
func Build(s Settings, names Names, lookup func(string) (string, bool)) (Options, error) {
	given := s.Given
	file, fileName, err := loadConfig(given.String("config"))
	if err != nil {
		return Options{}, err
	}
	if file == nil {
		file = &config.File{}
	}
	inFile := file.Values
	// source names where a value came from: "--max-response 32KiB" or
	// "config max-response: 32KiB".
	source := func(key string, fromFile bool, value any) string {
		if fromFile {
			return fmt.Sprintf("config %s: %v", configKey(key), value)
		}
		return fmt.Sprintf("%s %v", names(key), value)
	}
	// spell names an option whose value the engine refused: as the file's
	// key when only the file set it.
	spell := func(key string) string {
		o, _ := options.Lookup(key)
		switch {
		case key == "bearer" && given.Has("bearer-file"):
			return names("bearer-file")
		case o.Kind == options.FileSection, !given.Has(key) && inFile.Has(key):
			return "config " + configKey(key)
		}
		return names(key)
	}

	o := Options{Format: given.String("format"), Outputs: given.List("output"), Verbose: given.True("verbose"), spell: spell}
	o.SARIF = SARIF{Location: pick(given.String("sarif-location"), inFile.String("sarif-location")), Category: pick(given.String("sarif-category"), inFile.String("sarif-category")), Config: configPath(given.String("config"))}

	c := &o.Engine
	c.Command, c.Bearer = s.Command, given.String("bearer")
	if given.Has("bearer-file") {
		if c.Bearer, err = readBearer(given, names); err != nil {
			return o, err
		}
	}
	if c.Bearer == "" && lookup != nil {
		c.Bearer, _ = lookup(engine.BearerEnv)
	}
	for _, opt := range options.All() {
		if opt.Apply == nil {
			continue
		}
		v, fromFile := given.Value(opt.Key), false
		if v == nil {
			v, fromFile = inFile.Value(opt.Key), true
		}
		if v == nil {
			v, fromFile = opt.Default, false
		}
		if v == nil {
			continue
		}
		if !opt.Takes(v) {
			return o, fmt.Errorf("%s: %v is no value of it (a %T)", names(opt.Key), v, v)
		}
		n, isInt := v.(int)
		if opt.Kind == options.Size {
			if n, err = options.ParseSize(v.(string)); err != nil {
				return o, fmt.Errorf("%s: %w", source(opt.Key, fromFile, v), err)
			}
			isInt = true
		}
		if opt.Range != nil && isInt {
			if why := opt.Range.Check(n); why != "" {
				return o, fmt.Errorf("%s: %s", source(opt.Key, fromFile, v), why)
			}
		}
		if isInt {
			v = n
		}
		opt.Apply(c, v)
	}
	if c.Cwd != "" && !security.Uses(c.Cwd) { // {scratch} is made by the run
		if st, err := os.Stat(c.Cwd); err != nil || !st.IsDir() {
			return o, fmt.Errorf("%s %q: not a directory", spell("cwd"), c.Cwd)
		}
	}

	c.Tools = given.List("tools")
	if len(c.Tools) > 0 {
		c.ToolsFrom = names("tools") + " " + strings.Join(c.Tools, ",")
	} else if c.Tools = inFile.List("tools"); len(c.Tools) > 0 {
		c.ToolsFrom = configKey("tools") + " " + strings.Join(c.Tools, ",") + " in " + fileName
	}
	// Lists add up: the file's and the front end's.
	// Each skip pattern keeps where it came from, for the skip reason.
	for _, g := range given.List("skip-tools") {
		c.SkipTools = append(c.SkipTools, g)
		c.SkipToolsFrom = append(c.SkipToolsFrom, names("skip-tools")+" "+g)
	}
	for _, g := range inFile.List("skip-tools") {
		c.SkipTools = append(c.SkipTools, g)
		c.SkipToolsFrom = append(c.SkipToolsFrom, configKey("skip-tools")+" "+g+" in "+fileName)
	}
	c.PassEnv = slices.Concat(given.List("pass-env"), inFile.List("pass-env"))
	c.Secrets = slices.Concat(given.List("secret"), inFile.List("secret"))
	c.Env = slices.Concat(inFile.List("env"), given.List("env")) // the front end's last: it wins
	applyPerTool(c, file, fileName)
	for _, l := range file.Lifecycle {
		c.Lifecycle = append(c.Lifecycle, engine.LifecycleGroup{Resource: l.Resource, Create: l.Create, Read: l.Read, Delete: l.Delete, ReadArg: l.ReadArg, DeleteArg: l.DeleteArg})
	}
	if c.NoCalls {
		if err := staticOnly(c, given, inFile, names, spell); err != nil {
			return o, err
		}
	}

	if err := buildGates(&o.Gates, &o.defaultReplacedBy, s, inFile, names); err != nil {
		return o, err
	}
	for _, e := range file.Expected {
		if o.Gates.Expected == nil {
			o.Gates.Expected = map[string]string{}
		}
		o.Gates.Expected[e.ID] = e.Reason
	}
	if err := c.Validate(); err != nil {
		return o, errors.New(Describe(err, spell))
	}
	return o, nil
}

// maxBearerFile bounds the file of --bearer-file: a token is far smaller.
const maxBearerFile = 64 << 10

// readBearer reads the bearer token of the file given as bearer-file,
// without the white space around it nor a "Bearer " the file may begin
// with (mcp-fuzz adds its own). Errors name the file, never its contents.
func readBearer(given options.Values, names Names) (string, error) {
	path := given.String("bearer-file")
	if given.String("bearer") != "" {
		return "", fmt.Errorf("%s and %s both given: give one", names("bearer"), names("bearer-file"))
	}
	b, err := boundedfile.Read(path, maxBearerFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", names("bearer-file"), err)
	}
	token := strings.TrimSpace(string(b))
	if rest, ok := strings.CutPrefix(token, "Bearer "); ok {
		token = strings.TrimSpace(rest)
	}
	switch {
	case strings.TrimSpace(token) == "":
		return "", fmt.Errorf("%s %s: empty", names("bearer-file"), path)
	case strings.ContainsAny(token, "\r\n"):
		return "", fmt.Errorf("%s %s: more than one line (want the token alone)", names("bearer-file"), path)
	}
	return token, nil
}

// staticOnly checks the options of a static audit (c.NoCalls; see
// [engine.Config.NoCalls]) against those that choose, repeat or compare
// calls, which it cannot honour. Such an option given by the front end,
// or set in the file along with no-calls, is an error (exit 2). Set in the
// file under a no-calls of the front end, it is the file's default for
// the runs that do call, and yields: c calls nothing either way. --era
// both is an error from anywhere, since it also decides what is listed.
func staticOnly(c *engine.Config, given, inFile options.Values, names, spell Names) error {
	fromFront := given.Has("no-calls")
	noCalls := names("no-calls")
	if !fromFront {
		noCalls = "config " + configKey("no-calls")
	}
	if c.Era == engine.EraBoth {
		return fmt.Errorf("%s with %s both: the era comparison compares the verdicts of calls, and a static audit makes none (give %s modern, legacy or auto)", noCalls, spell("era"), spell("era"))
	}
	// calls says whether vs sets key so that it asks for calls: a switch
	// on, a concurrency of 2 or more, anything else set at all.
	calls := func(vs options.Values, key string) bool {
		switch v := vs[key].(type) {
		case bool:
			return v
		case int:
			if key == "concurrency" {
				return v > 0
			}
		}
		return vs.Has(key)
	}
	for _, o := range []struct {
		key string
		why string
	}{
		{"repeat", "it times repeated valid calls, and a static audit makes none"},
		{"include-destructive", "a static audit calls no tool, destructive or not"},
		{"tools", "it chooses the tools to call, and a static audit calls none (it lints every listed tool)"},
		{"skip-tools", "it chooses the tools not to call, and a static audit calls none (it lints every listed tool)"},
		{"protocol", "the protocol probes are requests, and a static audit sends none"},
		{"concurrency", "the concurrency checks call tools, and a static audit calls none"},
		{"sequential", "the lifecycle checks call tools, and a static audit calls none"},
	} {
		switch {
		case calls(given, o.key):
			return fmt.Errorf("%s with %s: %s", noCalls, names(o.key), o.why)
		case calls(inFile, o.key) && !fromFront:
			return fmt.Errorf("%s with config %s: %s", noCalls, configKey(o.key), o.why)
		}
	}
	// What is left to yield: the file's defaults, and its per-tool skip
	// and include.
	c.IncludeDestructive, c.Tools, c.ToolsFrom, c.SkipTools, c.SkipToolsFrom, c.AlsoCall = false, nil, "", nil, nil, nil
	c.Protocol, c.Concurrency, c.Sequential = false, 0, false
	return nil
}

// applyPerTool takes the per-tool examples, skips, includes and timeouts
// of the file called name, in name order.
func applyPerTool(c *engine.Config, f *config.File, name string) {
	for _, n := range sortedKeys(f.PerTool) {
		t := f.PerTool[n]
		if t.Example != nil {
			if c.Examples == nil {
				c.Examples = map[string]map[string]any{}
			}
			c.Examples[n] = t.Example
		}
		if t.Skip {
			c.SkipTools = append(c.SkipTools, n)
			c.SkipToolsFrom = append(c.SkipToolsFrom, "per-tool "+n+": skip: true in "+name)
		}
		if t.Include {
			c.AlsoCall = append(c.AlsoCall, n)
		}
		if t.Timeout.Duration > 0 {
			if c.ToolTimeouts == nil {
				c.ToolTimeouts = map[string]time.Duration{}
			}
			c.ToolTimeouts[n] = t.Timeout.Duration
		}
	}
}

// buildGates reads the gate settings, the front end's over the file's.
func buildGates(g *score.Gates, replacedBy *string, s Settings, inFile options.Values, names Names) error {
	given := s.Given
	floor, _ := options.Lookup("fail-under")
	failUnder, fromFront := options.Get[int](given, "fail-under")
	fromFile := false
	if !fromFront {
		failUnder, fromFile = options.Get[int](inFile, "fail-under")
	}
	if fromFront || fromFile {
		if why := floor.Range.Check(failUnder); why != "" {
			from := names("fail-under")
			if fromFile {
				from = "config " + configKey("fail-under") + ":"
			}
			return fmt.Errorf("%s %d: %s", from, failUnder, why)
		}
		g.FailUnder = &failUnder
	}
	dimFloor, _ := options.Lookup("fail-under-dimensions")
	fileDims, _ := options.Get[map[string]int](inFile, "fail-under-dimensions")
	for _, name := range sortedKeys(fileDims) {
		key, err := score.ParseDimension(name)
		if err != nil {
			return fmt.Errorf("config %s: %w", dimFloor.Config, err)
		}
		if v := fileDims[name]; dimFloor.Range.Check(v) != "" {
			return fmt.Errorf("config %s: %s: %d: %s", dimFloor.Config, name, v, dimFloor.Range.Check(v))
		}
		if g.FailUnderDim == nil {
			g.FailUnderDim = map[string]int{}
		}
		g.FailUnderDim[key] = fileDims[name]
	}
	dims, _ := options.Get[map[string]int](given, "fail-under-dimensions")
	for _, name := range sortedKeys(dims) {
		v := dims[name]
		key, err := score.ParseDimension(name)
		if err != nil {
			return fmt.Errorf("%s: %w", names("fail-under-"+name), err)
		}
		if why := dimFloor.Range.Check(v); why != "" {
			return fmt.Errorf("%s %d: %s", names("fail-under-"+name), v, why)
		}
		if g.FailUnderDim == nil {
			g.FailUnderDim = map[string]int{}
		}
		g.FailUnderDim[key] = v
	}
	failOn, from := given.List("fail-on"), names("fail-on")
	if len(failOn) == 0 {
		failOn, from = inFile.List("fail-on"), "config "+configKey("fail-on")
	}
	if len(failOn) > 0 {
		kinds, err := score.ParseFailOn(strings.Join(failOn, ","))
		if err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
		g.FailOn = kinds
		if len(kinds) > 0 && !s.NoDefaultGate && slices.ContainsFunc(score.DefaultFailOn(), func(k string) bool { return !slices.Contains(kinds, k) }) {
			// Kinds that leave out part of the default gate replace it:
			// the run says so when a critical finding then fails nothing.
			*replacedBy = from
		}
	}
	// A baseline alone means "fail only on new findings": the findings it
	// already has never fail, and any new critical or error finding does.
	baseline, failOnNew := given.String("baseline"), given.True("fail-on-new")
	g.FailOnNew = failOnNew || baseline != ""
	if none := len(failOn) > 0 && len(g.FailOn) == 0; none && g.FailOnNew {
		which := names("baseline")
		if baseline == "" {
			which = names("fail-on-new")
		}
		return fmt.Errorf("%s none turns every finding gate off, so %s has nothing to filter: give one of them", from, which)
	}
	switch {
	case baseline != "":
		rep, err := report.ReadFile(baseline)
		if err != nil {
			return fmt.Errorf("%s: %w", names("baseline"), err)
		}
		g.Baseline = rep
	case failOnNew:
		return fmt.Errorf("%s needs %s FILE (a previous JSON report)", names("fail-on-new"), names("baseline"))
	}
	switch {
	case len(failOn) == 0 && g.FailUnder == nil && len(g.FailUnderDim) == 0 && !g.FailOnNew && !s.NoDefaultGate:
		// Without any gate, a run fails on the critical findings (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes).
		g.FailOn, g.Default = score.DefaultFailOn(), true
	case len(failOn) == 0 && !g.FailOnNew && !s.NoDefaultGate:
		// Only score floors: critical findings fail nothing, which the
		// run says when it has some.
		switch {
		case fromFront:
			*replacedBy = names("fail-under")
		case g.FailUnder != nil:
			*replacedBy = "config " + configKey("fail-under")
		case len(dims) > 0:
			*replacedBy = names("fail-under-" + sortedKeys(dims)[0])
		default:
			*replacedBy = "config " + dimFloor.Config
		}
	}
	return nil
}

// configPath is the config file a run reads (see [loadConfig]): path, or
// config.DefaultPath when path is "" and that exists; "" for none.
func configPath(path string) string {
	if path == "" {
		if _, err := os.Stat(config.DefaultPath); err == nil {
			return config.DefaultPath
		}
	}
	return path
}

// loadConfig reads path, or config.DefaultPath when path is "" and the file
// exists; nil when there is no file to read. name is the file's name for
// skip reasons: path as given, or its base name when it is absolute (the
// Action's paths lie in a container).
func loadConfig(path string) (f *config.File, name string, err error) {
	if path == "" {
		if _, err := os.Stat(config.DefaultPath); err != nil {
			return nil, config.DefaultPath, nil
		}
		path = config.DefaultPath
	}
	name = path
	if filepath.IsAbs(path) {
		name = filepath.Base(path)
	}
	f, err = config.Load(path)
	return f, name, err
}

// pick returns the first non-empty string.
func pick(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
