package engine

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
)

// Config says what to fuzz and how. The zero value is not usable: set Command
// or URL; [Config.withDefaults] fills in the rest.
type Config struct {
	// Target: exactly one of Command or URL.
	Command []string // stdio server: program and arguments
	Env     []string // extra KEY=VALUE for the server process (secrets)
	PassEnv []string // names copied from the caller's environment
	Cwd     string   // working directory of the server process
	URL     string   // HTTP server endpoint
	Headers []string // "Name: value" added to every HTTP request (secrets)
	Bearer  string   // bearer token for HTTP (a secret)

	// NoBox starts a stdio server without the box (--no-box): as
	// mcp-fuzz's own user, beside it. See package box and SECURITY.md.
	NoBox bool
	// boxes is the run's box, set by [Run].
	boxes *boxes
	// sec is the run's scratch area and what the security cases need,
	// set by [Run] (see [Config.withScratch]).
	sec *securityRun
	// started is when the audit began, for each case's start offset.
	started time.Time

	// TemporaryProgram says that Command[0] is a build that is gone once
	// mcp-fuzz exits (the demo server of a `go run` mcp-fuzz). Reports and
	// reproducers then name the program by its base name, and a case's
	// shell reproducer is an `mcp-fuzz replay` of the report's target
	// rather than a pipe into a path that no longer exists.
	TemporaryProgram bool

	// Secrets names further environment variables whose values are secrets
	// (--secret, secrets: in the config), looked up in Env, PassEnv and then
	// LookupEnv. See [Config.SecretValues] for the whole secret set.
	Secrets []string
	// OwnSecrets are secrets of the caller that the server is not given, by
	// variable name: the front ends put mcp-fuzz's own tokens here (its
	// GITHUB_TOKEN, the Action's github-token). They are
	// redacted from everything the server sends like the others, and an
	// answer carrying one is a leak ("value of mcp-fuzz's own NAME"): the
	// server can only have read it where it should not. A value also given
	// to the server keeps that source. Values too short or too common to
	// redact safely are ignored.
	OwnSecrets map[string]string

	StartupTimeout time.Duration // spawn + initialize + discovery (default 60s)
	Timeout        time.Duration // per call (default 15s)

	SlowMs     int // a valid call slower than this is flagged slow (default 5000)
	BloatChars int // a valid answer larger than this is flagged bloated (default 20000)
	// Repeat is how many times the valid call of a tool annotated
	// readOnlyHint or idempotentHint is timed (default 3, 1 to
	// [MaxRepeat]); the slow rules compare the median. Other tools are
	// called once.
	Repeat int
	// Concurrency, when 2 or more (up to [MaxConcurrency]), runs the
	// concurrency checks after the audit (docs/BEHAVIOUR.md#checks-beyond-single-calls): that many sessions
	// call each confirmed tool safe to call again at once, and that many
	// requests are in flight together on one session. 0: none.
	Concurrency int

	Seed    int64  // case generation seed (default 1)
	Cases   int    // per-tool case budget (default 40; negative means unlimited)
	Profile string // "default" or "aggressive"

	// Protocol sends the protocol probes (--protocol, docs/BEHAVIOUR.md#checks-beyond-single-calls): an
	// unknown method and tool, a garbage cursor, params that are not an
	// object, a request without id; ping and a second initialize in the
	// 2025 era.
	Protocol bool
	// Era is the protocol era to speak: EraAuto (default: server/discover
	// first, initialize when the server does not speak the stateless era),
	// EraModern, EraLegacy or EraBoth (an audit in each era, compared).
	// The legacy HTTP+SSE transport is always legacy.
	Era string
	// ProtocolVersion is the stateless version offered in server/discover
	// (default [ModernProtocolVersion]).
	ProtocolVersion string

	// NoCalls makes the audit static (--no-calls): the target is started,
	// negotiated and listed, its metadata linted, and nothing else is
	// sent: no tools/call, no protocol check. Every tool is reported
	// with [NoCallsReason] and the report is graded on Schema alone
	// (see [report.Report.Static]). It cannot be combined with the
	// options that choose or repeat calls: see [Config.Validate].
	NoCalls bool

	// NoSecurity leaves out the security cases (--security=false;
	// docs/BEHAVIOUR.md#security-cases): payloads for path traversal,
	// command, code and SQL injection and server-side request forgery,
	// each confirmed only by its evidence (a canary's token in the answer,
	// a file created, a request to mcp-fuzz's loopback listener).
	NoSecurity bool

	IncludeDestructive bool
	// Sequential runs the lifecycle checks (docs/BEHAVIOUR.md#checks-beyond-single-calls) after the tools:
	// for each resource with one create, one read and one delete tool,
	// create, read, delete and read again. It calls tools that change the
	// server's state, so it needs IncludeDestructive.
	Sequential bool
	Tools      []string // globs; a match is called even if not read-only
	// ToolsOnlyNarrow makes Tools narrow the tools called without
	// overriding the read-only rule: a match that is not annotated
	// readOnlyHint: true is still skipped unless IncludeDestructive is set
	// (mcp-fuzz serve's audit tool, which declares itself non-destructive).
	ToolsOnlyNarrow bool
	// NotReadOnlyHint is what the skip reason of a tool not annotated
	// readOnlyHint: true says, in parentheses, about calling it anyway.
	// Empty: "use --include-destructive, or --tools NAME, to call it", the
	// command line's way (mcp-fuzz serve's is its audit_destructive tool).
	NotReadOnlyHint string
	SkipTools       []string // globs
	// ToolsFrom is the skip reason's text after "not matched by" for a tool
	// Tools does not match, naming where Tools came from as its users wrote
	// it ("input tools a,b"). Empty: "--tools " and the patterns.
	ToolsFrom string
	// SkipToolsFrom holds, for each pattern of SkipTools, the skip reason's
	// text after "skipped by" ("input skip-tools GLOB", "per-tool x: skip:
	// true in .mcp-fuzz.yml"). A missing or empty entry: "--skip-tools GLOB".
	SkipToolsFrom []string

	// Examples are user-supplied valid arguments per tool (the valid call and
	// the base of mutations).
	Examples map[string]map[string]any
	// Learned are the valid arguments a recorded run learned per tool (see
	// report.Case.LearnedFrom): [Replay] regenerates a compacted case of such
	// a tool from them, as the run did. [Run] ignores them.
	Learned map[string]map[string]any
	// ToolTimeouts override Timeout per tool name.
	ToolTimeouts map[string]time.Duration
	// AlsoCall names tools to call even if not annotated read-only (like a
	// --tools match, without restricting the others).
	AlsoCall []string
	// Lifecycle names, for the lifecycle checks, the create, read and
	// delete tools of resources whose tool names do not pair them (config
	// `lifecycle`): each is a group whatever its tools are called, and its
	// tools and resource are left out of the detection by name.
	Lifecycle []LifecycleGroup

	// LookupEnv reads the caller's environment (for PassEnv and the server's
	// minimal environment). Nil means an empty environment.
	LookupEnv func(string) (string, bool)

	// Progress, when set, receives one event per tool and per case.
	Progress func(Event)

	// Listed, when set, is called once by a static audit (NoCalls) with
	// the listed tools and their annotation hints, in the order of the
	// report's: [Config.SkipReason] says which a run would call.
	Listed func([]ToolHints)

	// Version is the mcp-fuzz version recorded in the report.
	Version string

	// MaxReconnects is how many failed reconnects in a row end the run (default 3).
	MaxReconnects int

	// Parallel is how many tools run at once, each on its own session (its
	// own server process over stdio). Default 1: tools of one server may
	// share state on disk, and N processes of it would race.
	Parallel int
	// MaxResponse is the response cap in bytes (default 4 MiB): an answer
	// larger than this is read to the cap, the rest counted and discarded,
	// and the case flagged bloated. It also bounds tools/list pages.
	MaxResponse int
	// MaxHangs is how many hangs a tool may have before its remaining cases
	// are not run (default 2; negative: never cut a tool short).
	MaxHangs int

	// params are the x-mcp-header bindings of the tools, by name, when the
	// run's calls carried Mcp-Param headers: reproducers send them too.
	params map[string][]mcpheader.Binding
}

// Defaults of the documented flags.
const (
	DefaultStartupTimeout = 60 * time.Second
	DefaultTimeout        = 15 * time.Second
	DefaultCases          = 40
	DefaultSeed           = 1
	DefaultMaxHangs       = 2
	DefaultRepeat         = 3
	// MaxRepeat bounds --repeat: more runs add time, not stability.
	MaxRepeat          = 20
	DefaultMaxResponse = rpc.DefaultMaxResponse
	// MinMaxResponse is the smallest --max-response: below it ordinary
	// answers would not fit.
	MinMaxResponse = 64 << 10
	// MaxMaxResponse is the largest --max-response.
	MaxMaxResponse = 1 << 30
	// MaxConcurrency bounds --concurrency: each session may be a server
	// process, all started at once.
	MaxConcurrency = 16
	// DefaultParallel is one tool at a time: tools of one server may share
	// state on disk.
	DefaultParallel = 1
	// MaxParallel bounds --parallel: each session may be a server process.
	MaxParallel = 64
)

// A Range is the values an integer field of [Config] takes: Min to Max, or
// Min and more when Max is 0.
type Range struct {
	Min, Max int
	// Zero, when set, says what 0 means for a field that takes it although
	// it is under Min ("none"), or whose 0 has a meaning of its own.
	Zero string
	// Bytes spells Min and Max as sizes (64KiB).
	Bytes bool
}

// Check says why v is out of r ("want 1 to 20", "must be positive"), or ""
// when v is in it.
func (r Range) Check(v int) string {
	// or0 says what 0 means when it is taken although it is under Min.
	or0 := ""
	if r.Zero != "" && r.Min > 0 {
		or0 = ", or 0 for " + r.Zero
	}
	switch {
	case v == 0 && r.Zero != "":
		return ""
	case v >= r.Min && (r.Max == 0 || v <= r.Max):
		return ""
	case r.Max == 0 && r.Min == 0 && r.Zero != "":
		return fmt.Sprintf("must be 0 (%s) or more", r.Zero)
	case r.Max == 0 && r.Min == 1 && or0 == "":
		return "must be positive"
	case r.Max == 0:
		return "must be " + r.spell(r.Min) + " or more" + or0
	}
	return fmt.Sprintf("want %s to %s%s", r.spell(r.Min), r.spell(r.Max), or0)
}

// spell writes n as a number, or as a size (64KiB) for a range of bytes.
func (r Range) spell(n int) string {
	if r.Bytes {
		for _, u := range []struct {
			unit  string
			shift int
		}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
			if n > 0 && n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d%s", n>>u.shift, u.unit)
			}
		}
	}
	return fmt.Sprint(n)
}

// ranges are the ranges [Config.Validate] holds integer fields to, by
// field name. A field's zero value is its default and is not checked.
var ranges = map[string]Range{
	"MaxResponse": {Min: MinMaxResponse, Max: MaxMaxResponse, Bytes: true},
	"Parallel":    {Min: 1, Max: MaxParallel},
	"Concurrency": {Min: 2, Max: MaxConcurrency, Zero: "none"},
	"Repeat":      {Min: 1, Max: MaxRepeat},
	"SlowMs":      {Min: 1},
	"BloatChars":  {Min: 1},
}

// RangeOf returns the range [Config.Validate] holds field, the name of an
// integer field of Config, to; ok is false for a field it does not bound.
// The field's zero value, its default, is taken whatever the range. Front
// ends check the values their users give against the same ranges.
func RangeOf(field string) (r Range, ok bool) {
	r, ok = ranges[field]
	return r, ok
}

// intField is the value of c's integer field named field (a key of
// ranges).
func (c Config) intField(field string) int {
	return int(reflect.ValueOf(c).FieldByName(field).Int())
}

// checkRange is the [ConfigError] of field, an integer field of Config, at
// v when v is out of its range.
func checkRange(field string, v int) error {
	if v == 0 {
		return nil
	}
	if why := ranges[field].Check(v); why != "" {
		return &ConfigError{Format: "{" + field + "} %d: " + why, Args: []any{v}}
	}
	return nil
}

// ErrConfig marks an invalid configuration (exit code 2).
var ErrConfig = errors.New("invalid configuration")

func (c Config) withDefaults() Config {
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = DefaultStartupTimeout
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.SlowMs <= 0 {
		c.SlowMs = DefaultSlowMs
	}
	if c.BloatChars <= 0 {
		c.BloatChars = DefaultBloatChars
	}
	if c.Cases == 0 {
		c.Cases = DefaultCases
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.Profile == "" {
		c.Profile = "default"
	}
	if c.Era == "" {
		c.Era = EraAuto
	}
	if c.Parallel <= 0 {
		c.Parallel = DefaultParallel
	}
	if c.MaxResponse <= 0 {
		c.MaxResponse = DefaultMaxResponse
	}
	if c.MaxHangs == 0 {
		c.MaxHangs = DefaultMaxHangs
	}
	if c.Repeat <= 0 {
		c.Repeat = DefaultRepeat
	}
	if c.MaxReconnects <= 0 {
		c.MaxReconnects = 3
	}
	if c.LookupEnv == nil {
		c.LookupEnv = func(string) (string, bool) { return "", false }
	}
	return c
}

// ConfigError is a problem with a [Config]. Its format names fields of
// Config in braces, "{URL} %q is not an http(s) URL"; [ConfigError.Error]
// spells them as Go fields, and a front end spells them as its users wrote
// them (a flag, an Action input, a config key) with [ConfigError.Describe].
// It matches [ErrConfig] with errors.Is.
type ConfigError struct {
	Format string // fmt format with {Field} placeholders
	Args   []any
}

func (e *ConfigError) Error() string {
	return ErrConfig.Error() + ": " + e.Describe(func(field string) string { return field })
}

// Is makes errors.Is(err, ErrConfig) true.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

// Describe is the message with each {Field} of the format spelled
// name(Field). The arguments (values as given) are formatted after, so a
// brace in them is never taken for a field.
func (e *ConfigError) Describe(name func(field string) string) string {
	var b strings.Builder
	rest := e.Format
	for {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest[max(i, 0):], '}')
		if i < 0 || j < 0 {
			break
		}
		b.WriteString(rest[:i])
		b.WriteString(strings.ReplaceAll(name(rest[i+1:i+j]), "%", "%%"))
		rest = rest[i+j+1:]
	}
	b.WriteString(rest)
	args := slices.Clone(e.Args)
	for i, a := range args {
		// A value as given can be any size: quote its start.
		if s, ok := a.(string); ok && len(s) > maxQuoted {
			args[i] = cutUTF8(s, maxQuoted) + "…"
		}
	}
	return fmt.Sprintf(b.String(), args...)
}

// maxQuoted is how much of a value a configuration error quotes.
const maxQuoted = 200

// Validate reports the first problem with c, a [*ConfigError].
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return &ConfigError{Format: format, Args: args}
	}
	switch {
	case len(c.Command) == 0 && c.URL == "":
		return bad("no target: give {Command} or {URL}")
	case len(c.Command) > 0 && c.URL != "":
		return bad("both {Command} and {URL} given: choose one target")
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("{URL} %q is not an http(s) URL", secret.HideUserinfo(c.URL))
		}
		if len(c.Env) > 0 || len(c.PassEnv) > 0 || c.Cwd != "" {
			return bad("{Env}, {PassEnv} and {Cwd} apply to a stdio command, not to {URL}")
		}
	} else if len(c.Headers) > 0 || c.Bearer != "" {
		return bad("{Headers} and {Bearer} apply to {URL}, not to a stdio command")
	}
	if c.Command != nil && strings.TrimSpace(c.Command[0]) == "" {
		return bad("empty {Command}")
	}
	for _, h := range c.Headers {
		if _, _, err := parseHeader(h); err != nil {
			return bad("{Headers} %q: want 'Name: value'", redactValue(h))
		}
	}
	for _, kv := range c.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return bad("{Env} %q: want KEY=VALUE", redactValue(kv))
		}
	}
	for _, n := range c.Secrets {
		if n == "" || strings.ContainsAny(n, "= \t\r\n\x00") {
			return bad("{Secrets} %q: want the name of an environment variable", n)
		}
	}
	for _, g := range c.Tools {
		if _, err := path.Match(g, ""); err != nil {
			return bad("{Tools} pattern %q: %v", g, err)
		}
	}
	for _, g := range c.SkipTools {
		if _, err := path.Match(g, ""); err != nil {
			return bad("{SkipTools} pattern %q: %v", g, err)
		}
	}
	if c.Sequential && !c.IncludeDestructive {
		return bad("{Sequential} creates and deletes resources through the server's tools: it needs {IncludeDestructive} (aim it only at a server whose writes are disposable)")
	}
	if err := validLifecycle(c.Lifecycle); err != nil {
		return err
	}
	if c.Profile != "" && c.Profile != "default" && c.Profile != "aggressive" {
		return bad("{Profile} %q: want default or aggressive", c.Profile)
	}
	if c.Era != "" && !slices.Contains([]string{EraAuto, EraModern, EraLegacy, EraBoth}, c.Era) {
		return bad("{Era} %q: want modern, legacy, both or auto", c.Era)
	}
	if c.ProtocolVersion != "" && !session.ValidProtocolVersion(c.ProtocolVersion) {
		return bad("{ProtocolVersion} %q: want a protocol revision such as %s", c.ProtocolVersion, ModernProtocolVersion)
	}
	if c.ProtocolVersion != "" && !slices.Contains(session.ModernVersions, c.ProtocolVersion) {
		return bad("{ProtocolVersion} %s: mcp-fuzz speaks the stateless era in %s", c.ProtocolVersion, strings.Join(session.ModernVersions, ", "))
	}
	if c.Timeout < 0 {
		return bad("{Timeout} %v: must be positive", c.Timeout)
	}
	if c.StartupTimeout < 0 {
		return bad("{StartupTimeout} %v: must be positive", c.StartupTimeout)
	}
	// Every bounded field, from the one list of ranges.
	for _, field := range slices.Sorted(maps.Keys(ranges)) {
		if err := checkRange(field, c.intField(field)); err != nil {
			return err
		}
	}
	if c.NoCalls {
		// Each of these chooses or compares calls; a static audit makes
		// none, so a run with both would not do what either asks.
		switch {
		case c.Era == EraBoth:
			return bad("{NoCalls} with {Era} both: the era comparison compares the verdicts of calls, and a static audit makes none (give {Era} modern, legacy or auto)")
		case c.IncludeDestructive:
			return bad("{NoCalls} with {IncludeDestructive}: a static audit calls no tool, destructive or not")
		case len(c.Tools) > 0:
			return bad("{NoCalls} with {Tools}: {Tools} chooses the tools to call, and a static audit calls none (every listed tool is linted)")
		case len(c.SkipTools) > 0:
			return bad("{NoCalls} with {SkipTools}: {SkipTools} chooses the tools not to call, and a static audit calls none (every listed tool is linted)")
		case c.Protocol:
			return bad("{NoCalls} with {Protocol}: the protocol probes are requests, and a static audit sends none")
		case c.Concurrency > 0:
			return bad("{NoCalls} with {Concurrency}: the concurrency checks call tools, and a static audit calls none")
		case c.Sequential:
			return bad("{NoCalls} with {Sequential}: the lifecycle checks call tools, and a static audit calls none")
		}
	}
	return nil
}

func parseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
		return "", "", fmt.Errorf("header %q: want 'Name: value'", redactValue(h))
	}
	return name, strings.TrimSpace(value), nil
}

// redactValue keeps the name part of KEY=VALUE or Name: value for
// messages: what comes before the first separator, space included (a
// malformed "Authorization Bearer TOKEN" has no colon), at most 64 bytes.
func redactValue(s string) string {
	i := strings.IndexAny(s, "=: \t")
	if i < 0 {
		return "***"
	}
	return cutUTF8(s[:i], 64) + s[i:i+1] + "***"
}

// secretSet is every secret of the run: those given to the server (see
// [secret.Collect]), then the caller's own ([Config.OwnSecrets]) that are
// not among them, by name.
func (c Config) secretSet() []secret.Entry {
	out := secret.Collect(secret.Inputs{
		Bearer:    c.Bearer,
		Headers:   c.Headers,
		URL:       c.URL,
		Env:       c.Env,
		PassEnv:   c.PassEnv,
		Named:     c.Secrets,
		LookupEnv: c.LookupEnv,
	})
	names := make([]string, 0, len(c.OwnSecrets))
	for name := range c.OwnSecrets {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v := c.OwnSecrets[name]
		if !secret.Eligible(v) || slices.ContainsFunc(out, func(e secret.Entry) bool { return e.Value == v }) {
			continue
		}
		out = append(out, secret.Entry{Source: secret.OwnSource(name), Value: v})
	}
	return out
}

// SecretValues returns the values the run treats as secrets: redacted from
// everything the server sends and from every report, and the only values
// whose echo raises the leak flag. Masking logs (the Action's ::add-mask::)
// should use exactly this set.
func (c Config) SecretValues() []string { return secret.Values(c.secretSet()) }

// secrets returns the secret set by where each value came from, for
// [leak.NewDetector].
func (c Config) secrets() map[string]string {
	out := map[string]string{}
	for _, e := range c.secretSet() {
		out[e.Source] = e.Value
	}
	return out
}
