package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Settings are an audit's options as a front end read them, typed. A nil
// pointer or an empty value is "not given": the config file, then the
// default, decides. Keys in messages are the command line's flag names
// ("timeout", "max-response"), spelled for the user by [Names].
type Settings struct {
	Command []string
	URL     string
	Headers []string
	Bearer  string // "" reads BearerFile, then MCP_FUZZ_BEARER
	// BearerFile names a file holding the bearer token (--bearer-file),
	// which keeps it off the command line; a trailing newline is not part
	// of it.
	BearerFile string
	Env        []string
	PassEnv    []string
	Secrets    []string
	Cwd        string
	// Era is the protocol era: "auto", "modern", "legacy" or "both" ("": the
	// config file, then auto); ProtocolVersion the stateless version
	// offered in server/discover.
	Era             string
	ProtocolVersion string

	StartupTimeout *time.Duration
	Timeout        *time.Duration
	SlowMs         *int
	BloatChars     *int
	MaxResponse    string // a size as typed, "4MiB"; see [ParseSize]
	MaxHangs       *int   // 0: never cut a tool short
	Repeat         *int   // runs of a valid call harmless to repeat
	Concurrency    *int   // sessions of the concurrency checks; 0: none
	Parallel       *int

	// NoCalls makes the audit static: see [engine.Config.NoCalls].
	NoCalls            *bool
	IncludeDestructive *bool
	// Sequential runs the lifecycle checks (needs IncludeDestructive).
	Sequential *bool
	Protocol   *bool // --protocol: the protocol probes
	// Box is false to start a stdio server without the box (--no-box,
	// config box: false, Action input box: false); nil: the file, then on.
	Box       *bool
	Tools     []string
	SkipTools []string

	Seed    *int64
	Cases   *int // 0: no limit
	Profile string

	Format  string
	Outputs []string
	// Verbose makes the text format list every case and reproducer
	// instead of the summary.
	Verbose bool

	FailUnder    *int
	FailUnderDim map[string]int // dimension as the user wrote it -> floor
	FailOn       []string
	Baseline     string // path of a previous JSON report
	FailOnNew    bool
	// NoDefaultGate leaves a run without gate settings ungated (the demo,
	// whose findings are on purpose) instead of failing on critical ones.
	NoDefaultGate bool

	// Config is the config file; "" reads config.DefaultPath when it exists.
	Config string

	// SARIFLocation is the file SARIF results point at (--sarif-location);
	// SARIFCategory their code scanning category (--sarif-category).
	SARIFLocation string
	SARIFCategory string
}

// Names spells an option key (a flag name of the command line: "timeout",
// "header", or "command" for the server command) as the front end's users
// write it: "--timeout", "input timeout".
type Names func(key string) string

// FlagNames spells keys as the command line's flags.
func FlagNames(key string) string {
	if key == "command" {
		return "a server command after --"
	}
	return "--" + key
}

// fieldKeys maps the fields of engine.Config that a [engine.ConfigError]
// names to option keys.
var fieldKeys = map[string]string{
	"Command": "command", "URL": "url", "Headers": "header", "Bearer": "bearer", "Tools": "tools", "SkipTools": "skip-tools",
	"Env": "env", "PassEnv": "pass-env", "Cwd": "cwd", "Secrets": "secret",
	"Profile": "profile", "Protocol": "protocol", "Era": "era", "ProtocolVersion": "protocol-version", "Timeout": "timeout", "StartupTimeout": "startup-timeout",
	"MaxResponse": "max-response", "Parallel": "parallel", "SlowMs": "slow-ms", "BloatChars": "bloat-chars", "Repeat": "repeat",
	"NoCalls": "no-calls", "IncludeDestructive": "include-destructive", "Concurrency": "concurrency", "Sequential": "sequential",
	"Examples": "per-tool", "ToolTimeouts": "per-tool", "AlsoCall": "per-tool", "Lifecycle": "lifecycle",
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
			if k, ok := fieldKeys[field]; ok {
				return n(k)
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

// Build applies the config file to s where s is silent, fills in the
// defaults and validates everything, so that the returned Options run as
// they are. lookup reads the environment (MCP_FUZZ_BEARER); names spells
// option keys in error messages. The engine's own checks run here too, so a
// front end reports every configuration error before starting anything.
func Build(s Settings, names Names, lookup func(string) (string, bool)) (Options, error) {
	file, fileName, err := loadConfig(s.Config)
	if err != nil {
		return Options{}, err
	}
	if file == nil {
		file = &config.File{}
	}
	// source names where a value came from: "--max-response 32KiB" or
	// "config max-response: 32KiB".
	source := func(key string, given bool, value any) string {
		if given {
			return fmt.Sprintf("%s %v", names(key), value)
		}
		return fmt.Sprintf("config %s: %v", key, value)
	}
	// spell names an option whose value the engine refused: as the file's
	// key when only the file set it.
	fromFile := map[string]bool{
		"profile":             s.Profile == "" && file.Profile != "",
		"era":                 s.Era == "" && file.Era != "",
		"protocol-version":    s.ProtocolVersion == "" && file.ProtocolVersion != "",
		"slow-ms":             s.SlowMs == nil && file.SlowMs != nil,
		"bloat-chars":         s.BloatChars == nil && file.BloatChars != nil,
		"repeat":              s.Repeat == nil && file.Repeat != nil,
		"no-calls":            s.NoCalls == nil && file.NoCalls != nil,
		"protocol":            s.Protocol == nil && file.Protocol != nil,
		"sequential":          s.Sequential == nil && file.Sequential != nil,
		"concurrency":         s.Concurrency == nil && file.Concurrency != nil,
		"include-destructive": s.IncludeDestructive == nil && file.IncludeDestructive != nil,
		"secret":              len(s.Secrets) == 0 && len(file.Secrets) > 0,
		"tools":               len(s.Tools) == 0 && len(file.Tools) > 0,
		"skip-tools":          len(s.SkipTools) == 0 && len(file.SkipTools) > 0,
		"env":                 len(s.Env) == 0 && len(file.Env) > 0,
		"pass-env":            len(s.PassEnv) == 0 && len(file.PassEnv) > 0,
		"cwd":                 s.Cwd == "" && file.Cwd != "",
		"timeout":             s.Timeout == nil && file.Timeout.Duration != 0,
		"per-tool":            true, // only the file has it
		"lifecycle":           true,
	}
	spell := func(key string) string {
		switch {
		case key == "bearer" && s.BearerFile != "":
			return names("bearer-file")
		case fromFile[key] && key == "secret":
			return "config secrets"
		case fromFile[key]:
			return "config " + key
		}
		return names(key)
	}

	o := Options{Format: s.Format, Outputs: s.Outputs, Verbose: s.Verbose, spell: spell}
	o.SARIF = SARIF{Location: pick(s.SARIFLocation, file.SARIFLocation), Category: pick(s.SARIFCategory, file.SARIFCategory), Config: configPath(s.Config)}

	c := &o.Engine
	c.Command, c.URL, c.Headers, c.Bearer, c.Cwd = s.Command, s.URL, s.Headers, s.Bearer, pick(s.Cwd, file.Cwd)
	if s.BearerFile != "" {
		if c.Bearer, err = readBearer(s, names); err != nil {
			return o, err
		}
	}
	if c.Bearer == "" && lookup != nil {
		c.Bearer, _ = lookup("MCP_FUZZ_BEARER")
	}
	c.Timeout = firstDuration(s.Timeout, file.Timeout.Duration, engine.DefaultTimeout)
	c.StartupTimeout = firstDuration(s.StartupTimeout, file.StartupTimeout.Duration, engine.DefaultStartupTimeout)
	c.SlowMs = *first(s.SlowMs, file.SlowMs, ptr(engine.DefaultSlowMs))
	c.BloatChars = *first(s.BloatChars, file.BloatChars, ptr(engine.DefaultBloatChars))
	c.Parallel = *first(s.Parallel, file.Parallel, ptr(1))
	c.Repeat = *first(s.Repeat, file.Repeat, ptr(engine.DefaultRepeat))
	c.Concurrency = *first(s.Concurrency, file.Concurrency, ptr(0))
	c.Seed = *first(s.Seed, file.Seed, ptr(int64(engine.DefaultSeed)))
	c.Profile = pick(s.Profile, file.Profile, "default")
	c.Era = pick(s.Era, file.Era, engine.EraAuto)
	c.ProtocolVersion = pick(s.ProtocolVersion, file.ProtocolVersion)
	c.IncludeDestructive = *first(s.IncludeDestructive, file.IncludeDestructive, ptr(false))
	c.Sequential = *first(s.Sequential, file.Sequential, ptr(false))
	c.Protocol = *first(s.Protocol, file.Protocol, ptr(false))
	c.NoBox = !*first(s.Box, file.Box, ptr(true))
	c.Tools = s.Tools
	if len(c.Tools) > 0 {
		c.ToolsFrom = names("tools") + " " + strings.Join(c.Tools, ",")
	} else if c.Tools = file.Tools; len(c.Tools) > 0 {
		c.ToolsFrom = "tools " + strings.Join(c.Tools, ",") + " in " + fileName
	}

	// Counts where 0 means no limit, which the engine spells -1.
	for _, n := range []struct {
		key, zero   string
		given, file *int
		def         int
		dst         *int
	}{
		{"cases", "no limit", s.Cases, file.Cases, engine.DefaultCases, &c.Cases},
		{"max-hangs", "never cut a tool short", s.MaxHangs, file.MaxHangs, engine.DefaultMaxHangs, &c.MaxHangs},
	} {
		v := *first(n.given, n.file, &n.def)
		if v < 0 {
			return o, fmt.Errorf("%s: must be 0 (%s) or more", source(n.key, n.given != nil, v), n.zero)
		}
		if *n.dst = v; v == 0 {
			*n.dst = -1
		}
	}
	c.MaxResponse = engine.DefaultMaxResponse
	if size := pick(s.MaxResponse, file.MaxResponse); size != "" {
		n, err := ParseSize(size)
		if err != nil {
			return o, fmt.Errorf("%s: %w", source("max-response", s.MaxResponse != "", size), err)
		}
		if n < engine.MinMaxResponse || n > 1<<30 {
			return o, fmt.Errorf("%s: want 64KiB to 1GiB", source("max-response", s.MaxResponse != "", size))
		}
		c.MaxResponse = n
	}
	if c.Parallel < 1 || c.Parallel > engine.MaxParallel {
		return o, fmt.Errorf("%s: want 1 to %d", source("parallel", s.Parallel != nil, c.Parallel), engine.MaxParallel)
	}
	if c.Concurrency < 0 || c.Concurrency == 1 || c.Concurrency > engine.MaxConcurrency {
		return o, fmt.Errorf("%s: want 2 to %d, or 0 for none", source("concurrency", s.Concurrency != nil, c.Concurrency), engine.MaxConcurrency)
	}
	if c.Repeat < 1 || c.Repeat > engine.MaxRepeat {
		return o, fmt.Errorf("%s: want 1 to %d", source("repeat", s.Repeat != nil, c.Repeat), engine.MaxRepeat)
	}
	// 0 is the engine's "default": refuse it here, where it was written.
	if c.SlowMs <= 0 {
		return o, fmt.Errorf("%s: must be positive", source("slow-ms", s.SlowMs != nil, c.SlowMs))
	}
	if c.BloatChars <= 0 {
		return o, fmt.Errorf("%s: must be positive", source("bloat-chars", s.BloatChars != nil, c.BloatChars))
	}
	if c.Cwd != "" {
		if st, err := os.Stat(c.Cwd); err != nil || !st.IsDir() {
			return o, fmt.Errorf("%s %q: not a directory", spell("cwd"), c.Cwd)
		}
	}

	// Lists add up: the file's and the front end's.
	// Each skip pattern keeps where it came from, for the skip reason.
	for _, g := range s.SkipTools {
		c.SkipTools = append(c.SkipTools, g)
		c.SkipToolsFrom = append(c.SkipToolsFrom, names("skip-tools")+" "+g)
	}
	for _, g := range file.SkipTools {
		c.SkipTools = append(c.SkipTools, g)
		c.SkipToolsFrom = append(c.SkipToolsFrom, "skip-tools "+g+" in "+fileName)
	}
	c.PassEnv = append(append([]string{}, s.PassEnv...), file.PassEnv...)
	c.Secrets = append(append([]string{}, s.Secrets...), file.Secrets...)
	for _, k := range sortedKeys(file.Env) {
		c.Env = append(c.Env, k+"="+file.Env[k])
	}
	c.Env = append(c.Env, s.Env...) // the front end's last: it wins
	applyPerTool(c, file, fileName)
	for _, l := range file.Lifecycle {
		c.Lifecycle = append(c.Lifecycle, engine.LifecycleGroup{Resource: l.Resource, Create: l.Create, Read: l.Read, Delete: l.Delete, ReadArg: l.ReadArg, DeleteArg: l.DeleteArg})
	}
	c.NoCalls = *first(s.NoCalls, file.NoCalls, ptr(false))
	if c.NoCalls {
		if err := staticOnly(c, s, file, names, spell); err != nil {
			return o, err
		}
	}

	if err := buildGates(&o.Gates, &o.defaultReplacedBy, s, file, names); err != nil {
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

// readBearer reads the bearer token of s.BearerFile, without the white
// space around it nor a "Bearer " the file may begin with (mcp-fuzz adds
// its own). Errors name the file, never its contents.
func readBearer(s Settings, names Names) (string, error) {
	if s.Bearer != "" {
		return "", fmt.Errorf("%s and %s both given: give one", names("bearer"), names("bearer-file"))
	}
	b, err := boundedfile.Read(s.BearerFile, maxBearerFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", names("bearer-file"), err)
	}
	token := strings.TrimSpace(string(b))
	if rest, ok := strings.CutPrefix(token, "Bearer "); ok {
		token = strings.TrimSpace(rest)
	}
	switch {
	case strings.TrimSpace(token) == "":
		return "", fmt.Errorf("%s %s: empty", names("bearer-file"), s.BearerFile)
	case strings.ContainsAny(token, "\r\n"):
		return "", fmt.Errorf("%s %s: more than one line (want the token alone)", names("bearer-file"), s.BearerFile)
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
func staticOnly(c *engine.Config, s Settings, f *config.File, names, spell Names) error {
	fromFront := s.NoCalls != nil
	noCalls := names("no-calls")
	if !fromFront {
		noCalls = "config no-calls"
	}
	if c.Era == engine.EraBoth {
		return fmt.Errorf("%s with %s both: the era comparison compares the verdicts of calls, and a static audit makes none (give %s modern, legacy or auto)", noCalls, spell("era"), spell("era"))
	}
	on := func(p *bool) bool { return p != nil && *p }
	for _, o := range []struct {
		key           string
		given, inFile bool
		why           string
	}{
		{"repeat", s.Repeat != nil, f.Repeat != nil, "it times repeated valid calls, and a static audit makes none"},
		{"include-destructive", on(s.IncludeDestructive), on(f.IncludeDestructive), "a static audit calls no tool, destructive or not"},
		{"tools", len(s.Tools) > 0, len(f.Tools) > 0, "it chooses the tools to call, and a static audit calls none (it lints every listed tool)"},
		{"skip-tools", len(s.SkipTools) > 0, len(f.SkipTools) > 0, "it chooses the tools not to call, and a static audit calls none (it lints every listed tool)"},
		{"protocol", on(s.Protocol), on(f.Protocol), "the protocol probes are requests, and a static audit sends none"},
		{"concurrency", s.Concurrency != nil && *s.Concurrency > 0, f.Concurrency != nil && *f.Concurrency > 0, "the concurrency checks call tools, and a static audit calls none"},
		{"sequential", on(s.Sequential), on(f.Sequential), "the lifecycle checks call tools, and a static audit calls none"},
	} {
		switch {
		case o.given:
			return fmt.Errorf("%s with %s: %s", noCalls, names(o.key), o.why)
		case o.inFile && !fromFront:
			return fmt.Errorf("%s with config %s: %s", noCalls, o.key, o.why)
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
func buildGates(g *score.Gates, replacedBy *string, s Settings, f *config.File, names Names) error {
	if failUnder := first(s.FailUnder, f.FailUnder); failUnder != nil {
		if *failUnder < 0 || *failUnder > 100 {
			from := names("fail-under")
			if s.FailUnder == nil {
				from = "config fail-under:"
			}
			return fmt.Errorf("%s %d: want 0 to 100", from, *failUnder)
		}
		g.FailUnder = failUnder
	}
	for _, name := range sortedKeys(f.FailUnderDim) {
		key, err := score.ParseDimension(name)
		if err != nil {
			return fmt.Errorf("config fail-under-dimensions: %w", err)
		}
		if v := f.FailUnderDim[name]; v < 0 || v > 100 {
			return fmt.Errorf("config fail-under-dimensions: %s: %d: want 0 to 100", name, v)
		}
		if g.FailUnderDim == nil {
			g.FailUnderDim = map[string]int{}
		}
		g.FailUnderDim[key] = f.FailUnderDim[name]
	}
	for _, name := range sortedKeys(s.FailUnderDim) {
		v := s.FailUnderDim[name]
		key, err := score.ParseDimension(name)
		if err != nil {
			return fmt.Errorf("%s: %w", names("fail-under-"+name), err)
		}
		if v < 0 || v > 100 {
			return fmt.Errorf("%s %d: want 0 to 100", names("fail-under-"+name), v)
		}
		if g.FailUnderDim == nil {
			g.FailUnderDim = map[string]int{}
		}
		g.FailUnderDim[key] = v
	}
	failOn, from := s.FailOn, names("fail-on")
	if len(failOn) == 0 {
		failOn, from = f.FailOn, "config fail-on"
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
	g.FailOnNew = s.FailOnNew || s.Baseline != ""
	if none := len(failOn) > 0 && len(g.FailOn) == 0; none && g.FailOnNew {
		which := names("baseline")
		if s.Baseline == "" {
			which = names("fail-on-new")
		}
		return fmt.Errorf("%s none turns every finding gate off, so %s has nothing to filter: give one of them", from, which)
	}
	switch {
	case s.Baseline != "":
		rep, err := report.ReadFile(s.Baseline)
		if err != nil {
			return fmt.Errorf("%s: %w", names("baseline"), err)
		}
		g.Baseline = rep
	case s.FailOnNew:
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
		case s.FailUnder != nil:
			*replacedBy = names("fail-under")
		case g.FailUnder != nil:
			*replacedBy = "config fail-under"
		case len(s.FailUnderDim) > 0:
			*replacedBy = names("fail-under-" + sortedKeys(s.FailUnderDim)[0])
		default:
			*replacedBy = "config fail-under-dimensions"
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

// ParseSeconds reads a duration as a Go duration ("30s", "1m") or plain
// seconds ("30", "2.5"): from a millisecond to a year.
func ParseSeconds(v string) (time.Duration, error) {
	var d time.Duration
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 {
			return 0, errors.New("must be positive")
		}
		if f > maxDuration.Seconds() {
			return 0, errors.New("want at most a year")
		}
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(v); err != nil {
		return 0, errors.New("want seconds or a duration like 30s")
	}
	switch {
	case d <= 0:
		return 0, errors.New("must be positive")
	case d < time.Millisecond:
		return 0, errors.New("want at least 1ms")
	case d > maxDuration:
		return 0, errors.New("want at most a year")
	}
	return d, nil
}

// maxDuration bounds a timeout: anything longer is a typo.
const maxDuration = 365 * 24 * time.Hour

// ParseSize reads a byte count, plain ("65536") or with a unit: KiB, MiB,
// GiB (K, M, G, KB, MB and GB are read as the same binary units).
func ParseSize(v string) (int, error) {
	t := strings.TrimSpace(v)
	shift := 0
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"KIB", 10}, {"MIB", 20}, {"GIB", 30}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, shift = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.shift
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*float64(int64(1)<<shift) > 1<<40 {
		return 0, fmt.Errorf("want a size like 4MiB, 512KiB or 65536")
	}
	return int(f * float64(int64(1)<<shift)), nil
}

// first returns the first non-nil pointer.
func first[T any](ps ...*T) *T {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func firstDuration(given *time.Duration, file, def time.Duration) time.Duration {
	switch {
	case given != nil:
		return *given
	case file > 0:
		return file
	}
	return def
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

func ptr[T any](v T) *T { return &v }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
