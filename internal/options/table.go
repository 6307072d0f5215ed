package options

import (
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// The headings of --help that flags are listed under, in its order.
const (
	sectionTarget        = "Target"
	sectionSelection     = "Selection"
	sectionGeneration    = "Generation"
	sectionOutput        = "Output"
	sectionGates         = "Gates"
	sectionConfiguration = "Configuration"
)

// Sections are the headings of --help that flags are listed under, in its
// order.
var Sections = []string{sectionTarget, sectionSelection, sectionGeneration, sectionOutput, sectionGates, sectionConfiguration}

// table is every setting, in the order --help lists the flags (see
// README.md, "Usage", and docs/BEHAVIOUR.md for what each does).
var table = []Option{
	// The target.
	{
		Key: "command", Kind: Command,
		Input:  Input{Name: "command"},
		Param:  Param{Name: "command"},
		Fields: []string{"Command"},
	},
	{
		Key: "url", Kind: String,
		Flag:   Flag{Name: "url", Arg: "URL", Section: sectionTarget, Help: `HTTP endpoint (Streamable HTTP, falling back to legacy SSE on a 4xx)`},
		Input:  Input{Name: "url"},
		Param:  Param{Name: "url"},
		Fields: []string{"URL"},
		Apply:  func(c *engine.Config, v any) { c.URL = v.(string) },
	},
	{
		Key: "header", Kind: Lines,
		Flag:   Flag{Name: "header", Arg: "'Name: value'", Section: sectionTarget, Help: `HTTP header for every request (repeatable; a secret)`},
		Input:  Input{Name: "headers"},
		Param:  Param{Name: "headers"},
		Fields: []string{"Headers"},
		Apply:  func(c *engine.Config, v any) { c.Headers = v.([]string) },
	},
	// The Action reads the bearer token from $MCP_FUZZ_BEARER only.
	{
		Key: "bearer", Kind: String,
		Flag:   Flag{Name: "bearer", Arg: "TOKEN", Section: sectionTarget, Help: `bearer token (default $MCP_FUZZ_BEARER; a secret)`},
		Param:  Param{Name: "bearer"},
		Fields: []string{"Bearer"},
	},
	{
		Key: "bearer-file", Kind: Path,
		Flag: Flag{Name: "bearer-file", Arg: "FILE", Section: sectionTarget, Help: `read the bearer token from FILE (trailing newline dropped);
this and $MCP_FUZZ_BEARER keep it off the command line, where
other processes can read it`},
	},
	{
		Key: "env", Kind: Lines,
		Flag: Flag{Name: "env", Arg: "KEY=VALUE", Section: sectionTarget, Help: `environment variable for the server process (repeatable; a secret
when KEY names one, TOKEN, KEY, SECRET, PASS, AUTH, ..., or VALUE
looks like a credential; never true/false, numbers, paths, URLs or
values under 8 characters)`},
		Input:  Input{Name: "env"},
		Config: "env",
		Param:  Param{Name: "env"},
		Fields: []string{"Env"},
	},
	{
		Key: "pass-env", Kind: Names,
		Flag:   Flag{Name: "pass-env", Arg: "NAME", Section: sectionTarget, Help: `copy NAME from this environment to the server (repeatable)`},
		Input:  Input{Name: "pass-env"},
		Config: "pass-env",
		Fields: []string{"PassEnv"},
	},
	{
		Key: "secret", Kind: Names,
		Flag: Flag{Name: "secret", Arg: "NAME", Section: sectionTarget, Help: `treat the value of variable NAME as a secret (repeatable): redact
it everywhere, flag its echo as a leak`},
		Input:  Input{Name: "secrets"},
		Config: "secrets",
		Fields: []string{"Secrets"},
	},
	// The Action's working-directory is also where its relative paths start.
	{
		Key: "cwd", Kind: Path,
		Flag:   Flag{Name: "cwd", Arg: "DIR", Section: sectionTarget, Help: `working directory of the server process`},
		Input:  Input{Name: "working-directory"},
		Config: "cwd",
		Param:  Param{Name: "cwd"},
		Fields: []string{"Cwd"},
		Apply:  func(c *engine.Config, v any) { c.Cwd = v.(string) },
	},
	{
		Key: "era", Kind: String, Default: engine.EraAuto,
		Values: []string{engine.EraAuto, engine.EraModern, engine.EraLegacy, engine.EraBoth},
		Flag: Flag{Name: "era", Arg: "E", Section: sectionTarget, Help: `protocol era: auto (default: server/discover first, the initialize
handshake when the server does not speak 2026-07-28), modern (the
stateless era only; exit 3 when the server does not speak it),
legacy (initialize only) or both (audit in each era, report the
modern one and the verdicts that differ as era_difference
findings; a server of one era is audited once, the report says
why); legacy HTTP+SSE is always legacy`},
		Input:  Input{Name: "era"},
		Config: "era",
		Param:  Param{Name: "era"},
		Fields: []string{"Era"},
		Apply:  func(c *engine.Config, v any) { c.Era = v.(string) },
	},
	{
		Key: "protocol-version", Kind: String, Default: engine.ModernProtocolVersion,
		Flag: Flag{Name: "protocol-version", Arg: "V", Section: sectionTarget, Help: `the stateless version offered in server/discover (default
2026-07-28)`},
		Input:  Input{Name: "protocol-version"},
		Config: "protocol-version",
		Fields: []string{"ProtocolVersion"},
		Apply:  func(c *engine.Config, v any) { c.ProtocolVersion = v.(string) },
	},
	{
		Key: "startup-timeout", Kind: Duration, Default: engine.DefaultStartupTimeout,
		Flag:   Flag{Name: "startup-timeout", Arg: "T", Section: sectionTarget, Help: `spawn + server/discover or initialize + tools/list deadline (default 60s)`},
		Input:  Input{Name: "startup-timeout"},
		Config: "startup-timeout",
		Param:  Param{Name: "startup_timeout_seconds", Max: 120 * time.Second},
		Fields: []string{"StartupTimeout"},
		Apply:  func(c *engine.Config, v any) { c.StartupTimeout = v.(time.Duration) },
	},
	{
		Key: "timeout", Kind: Duration, Default: engine.DefaultTimeout,
		Flag:   Flag{Name: "timeout", Arg: "T", Section: sectionTarget, Help: `per-call deadline (default 15s); T is seconds or a duration`},
		Input:  Input{Name: "timeout"},
		Config: "timeout",
		Param:  Param{Name: "timeout_seconds", Default: 10 * time.Second, Max: 60 * time.Second},
		Fields: []string{"Timeout"},
		Apply:  func(c *engine.Config, v any) { c.Timeout = v.(time.Duration) },
	},
	{
		Key: "slow-ms", Kind: Int, Default: engine.DefaultSlowMs, Range: engineRange("SlowMs"),
		Flag: Flag{Name: "slow-ms", Arg: "N", Section: sectionTarget, Help: `flag a valid call whose median (p50) is over N ms (default 5000),
or over 3x the server's median and 250 ms`},
		Config: "slow-ms",
		Fields: []string{"SlowMs"},
		Apply:  func(c *engine.Config, v any) { c.SlowMs = v.(int) },
	},
	{
		Key: "repeat", Kind: Int, Default: engine.DefaultRepeat, Range: engineRange("Repeat"),
		Flag: Flag{Name: "repeat", Arg: "N", Section: sectionTarget, Help: `time the valid call N times (1 to 20, default 3) and judge slowness
by the median; only tools annotated readOnlyHint or idempotentHint
are called again, others once`},
		Input:  Input{Name: "repeat"},
		Config: "repeat",
		Fields: []string{"Repeat"},
		Apply:  func(c *engine.Config, v any) { c.Repeat = v.(int) },
	},
	{
		Key: "concurrency", Kind: Int, Default: 0, Range: engineRange("Concurrency"),
		Flag: Flag{Name: "concurrency", Arg: "N", Section: sectionTarget, Help: `after the audit, N sessions (2 to 16; N server processes over
stdio) make each confirmed tool's valid call at once (only tools
annotated readOnlyHint or destructiveHint false), and N requests
go in flight together on one session, one then cancelled:
failures together are concurrency_failure findings, mixed-up
ids protocol_violation (default 0: none; 60s budget in all)`},
		Input:  Input{Name: "concurrency"},
		Config: "concurrency",
		Fields: []string{"Concurrency"},
		Apply:  func(c *engine.Config, v any) { c.Concurrency = v.(int) },
	},
	{
		Key: "bloat-chars", Kind: Int, Default: engine.DefaultBloatChars, Range: engineRange("BloatChars"),
		Flag:   Flag{Name: "bloat-chars", Arg: "N", Section: sectionTarget, Help: `flag a valid answer over N characters (default 20000), or 3x the median`},
		Config: "bloat-chars",
		Fields: []string{"BloatChars"},
		Apply:  func(c *engine.Config, v any) { c.BloatChars = v.(int) },
	},
	{
		Key: "max-response", Kind: Size, Default: SizeText(engine.DefaultMaxResponse), Range: engineRange("MaxResponse"),
		Flag: Flag{Name: "max-response", Arg: "SIZE", Section: sectionTarget, Help: `largest answer read, 64KiB to 1GiB (default 4MiB; units KiB, MiB,
GiB): the rest of a larger one is counted and discarded, the case
flagged bloated`},
		Config: "max-response",
		Fields: []string{"MaxResponse"},
		Apply:  func(c *engine.Config, v any) { c.MaxResponse = v.(int) },
	},
	// The engine says "never" with a negative MaxHangs, "no limit" with a negative Cases.
	{
		Key: "max-hangs", Kind: Int, Default: engine.DefaultMaxHangs, Range: &engine.Range{Zero: "never cut a tool short"},
		Flag: Flag{Name: "max-hangs", Arg: "N", Section: sectionTarget, Help: `after N hangs of one tool, its remaining cases are not run and the
report says so (default 2; 0 never cuts a tool short)`},
		Config: "max-hangs",
		Fields: []string{"MaxHangs"},
		Apply:  func(c *engine.Config, v any) { c.MaxHangs = zeroIsNone(v.(int)) },
	},
	{
		Key: "parallel", Kind: Int, Default: engine.DefaultParallel, Range: engineRange("Parallel"),
		Flag: Flag{Name: "parallel", Arg: "N", Section: sectionTarget, Help: `run N tools at once (1 to 64), each on its own session (its own
server process over stdio; default 1: tools that share state on
disk would race)`},
		Config: "parallel",
		Fields: []string{"Parallel"},
		Apply:  func(c *engine.Config, v any) { c.Parallel = v.(int) },
	},
	// What is called.
	{
		Key: "no-calls", Kind: Bool, Default: false,
		Flag: Flag{Name: "no-calls", Section: sectionSelection, Help: `static audit: start (or connect to) the server, list and lint its
tools, resources and prompts, and call nothing (no tools/call, no
protocol check); graded on Schema alone and labelled "static audit";
not with --era both, --repeat, --include-destructive, --tools,
--skip-tools, --protocol, --concurrency or --sequential`},
		Input:  Input{Name: "no-calls", Default: "false"},
		Config: "no-calls",
		Fields: []string{"NoCalls"},
		Apply:  func(c *engine.Config, v any) { c.NoCalls = v.(bool) },
	},
	{
		Key: "include-destructive", Kind: Bool, Default: false,
		Flag:   Flag{Name: "include-destructive", Section: sectionSelection, Help: `call every tool, not only those annotated readOnlyHint: true`},
		Input:  Input{Name: "include-destructive", Default: "false"},
		Config: "include-destructive",
		Fields: []string{"IncludeDestructive"},
		Apply:  func(c *engine.Config, v any) { c.IncludeDestructive = v.(bool) },
	},
	{
		Key: "protocol", Kind: Bool, Default: false,
		Flag: Flag{Name: "protocol", Section: sectionSelection, Help: `also send the protocol probes: an unknown method and tool, a garbage
cursor, params that are not an object, a request without id (and
ping and a second initialize in the 2025 era)`},
		Input:  Input{Name: "protocol"},
		Config: "protocol",
		Param:  Param{Name: "protocol"},
		Fields: []string{"Protocol"},
		Apply:  func(c *engine.Config, v any) { c.Protocol = v.(bool) },
	},
	{
		Key: "security", Kind: Bool, Default: true,
		Flag: Flag{Name: "security", Section: sectionSelection, Help: `security cases, on by default (--security=false leaves them out):
payloads for path traversal, command and code injection, SQL
injection and server-side request forgery in the string properties
whose name, description or format suits them; a flaw is reported only
with its evidence (a canary file's token returned, a file created in
the scratch area, a request to mcp-fuzz's loopback listener). Write
{scratch} in the command, --env values or --cwd for the run's scratch
directory: path traversal is tried on a server pointed at it`},
		Input:  Input{Name: "security"},
		Config: "security",
		Param:  Param{Name: "security"},
		Fields: []string{"NoSecurity"},
		Apply:  func(c *engine.Config, v any) { c.NoSecurity = !v.(bool) },
	},
	{
		Key: "box", Kind: Bool, Default: true,
		Flag: Flag{Name: "no-box", Negated: true, Section: sectionSelection, Help: `start a stdio server without the box: as mcp-fuzz's own user, able
to read its environment and memory, signal it and outlive it (the
box, on by default: a uid of its own or no capability, Landlock, a
PID namespace; the summary's box line says what applied)`},
		Input:  Input{Name: "box"},
		Config: "box",
		Fields: []string{"NoBox"},
		Apply:  func(c *engine.Config, v any) { c.NoBox = !v.(bool) },
	},
	{
		Key: "tools", Kind: List,
		Flag:   Flag{Name: "tools", Arg: "GLOB,...", Section: sectionSelection, Help: `call only matching tools (a match is called even if not read-only)`},
		Input:  Input{Name: "tools"},
		Config: "tools",
		Param:  Param{Name: "tools"},
		Fields: []string{"Tools"},
	},
	{
		Key: "skip-tools", Kind: List,
		Flag:   Flag{Name: "skip-tools", Arg: "GLOB,...", Section: sectionSelection, Help: `never call matching tools`},
		Input:  Input{Name: "skip-tools"},
		Config: "skip-tools",
		Param:  Param{Name: "skip_tools"},
		Fields: []string{"SkipTools"},
	},
	{
		Key: "sequential", Kind: Bool, Default: false,
		Flag: Flag{Name: "sequential", Section: sectionSelection, Help: `lifecycle checks (needs --include-destructive): group tools by the
resource their names say (create/add/insert/new, get/read/fetch/
retrieve/describe/show/open, delete/remove/destroy), then for each
resource with one tool of each and an id argument: create, read,
delete, read again; a successful read after the delete is a
stale_read finding (error). A create tool taking another
resource's id (project_id) also gets parent, child, delete
parent, read child: a readable child is orphan_readable (info).
Aim it only at a server whose writes are disposable`},
		Input:  Input{Name: "sequential"},
		Config: "sequential",
		Fields: []string{"Sequential"},
		Apply:  func(c *engine.Config, v any) { c.Sequential = v.(bool) },
	},
	// The cases.
	{
		Key: "seed", Kind: Int64, Default: int64(engine.DefaultSeed),
		Flag:   Flag{Name: "seed", Arg: "N", Section: sectionGeneration, Help: `case generation seed (default 1)`},
		Input:  Input{Name: "seed"},
		Config: "seed",
		Param:  Param{Name: "seed"},
		Fields: []string{"Seed"},
		Apply:  func(c *engine.Config, v any) { c.Seed = v.(int64) },
	},
	{
		Key: "cases", Kind: Int, Default: engine.DefaultCases, Range: &engine.Range{Zero: "no limit"},
		Flag:   Flag{Name: "cases", Arg: "N", Section: sectionGeneration, Help: `per-tool case budget (default 40; 0 for no limit)`},
		Input:  Input{Name: "cases"},
		Config: "cases",
		Param:  Param{Name: "cases", Max: 200},
		Fields: []string{"Cases"},
		Apply:  func(c *engine.Config, v any) { c.Cases = zeroIsNone(v.(int)) },
	},
	{
		Key: "profile", Kind: String, Default: "default",
		Values: []string{"default", "aggressive"},
		Flag:   Flag{Name: "profile", Arg: "P", Section: sectionGeneration, Help: `default | aggressive (adds probe strings to string properties)`},
		Config: "profile",
		Fields: []string{"Profile"},
		Apply:  func(c *engine.Config, v any) { c.Profile = v.(string) },
	},
	// What is written.
	{
		Key: "format", Kind: String, Default: "text",
		Values: []string{"text", "json", "markdown", "sarif", "junit", "jsonl", "badge"},
		Flag:   Flag{Name: "format", Arg: "F", Section: sectionOutput, Help: `stdout format: text (default), json, markdown, sarif, junit, jsonl, badge`},
	},
	{
		Key: "json", Kind: Bool, Default: false,
		Flag: Flag{Name: "json", Section: sectionOutput, Help: `same as --format json (text is coloured on a terminal unless
NO_COLOR or CI is set)`},
	},
	{
		Key: "verbose", Kind: Bool, Default: false,
		Flag: Flag{Name: "verbose", Section: sectionOutput, Help: `text: every case and every reproducer, not the summary (which
fits $COLUMNS or the terminal, 80 to 120 columns)`},
	},
	{
		Key: "output", Kind: Names,
		Flag: Flag{Name: "output", Short: "o", Arg: "FILE", Section: sectionOutput, Help: `also write FILE, format from its extension (repeatable):
.json report, .md Markdown, .sarif SARIF 2.1.0, .xml JUnit,
.jsonl full trace, .svg badge`},
	},
	{
		Key: "sarif-location", Kind: Path,
		Flag: Flag{Name: "sarif-location", Arg: "FILE", Section: sectionOutput, Help: `the repository file SARIF results point at (code scanning needs
one); default: the config file (each tool's per-tool line), else
the nearest server.json, package.json, pyproject.toml, setup.py,
Cargo.toml, go.mod, pom.xml, build.gradle(.kts), composer.json
or Gemfile up to the repository root, else (in Actions) the
workflow file; with none, results have no location and code
scanning refuses the upload (a warning says so)`},
		Input:  Input{Name: "sarif-location"},
		Config: "sarif-location",
	},
	{
		Key: "sarif-category", Kind: String,
		Flag: Flag{Name: "sarif-category", Arg: "NAME", Section: sectionOutput, Help: `code scanning category: automationDetails.id is
mcp-fuzz/NAME/ (default: the target's command or URL), so
uploads for several targets of one commit do not replace
each other`},
		Config: "sarif-category",
	},
	// The gates.
	{
		Key: "fail-under", Kind: Int, Range: &engine.Range{Min: 0, Max: 100},
		Flag: Flag{Name: "fail-under", Arg: "N", Section: sectionGates, Help: `overall score under N (a run that is not graded fails it; under
--no-calls, the Schema score)`},
		Input:  Input{Name: "fail-under"},
		Config: "fail-under",
	},
	{
		Key: "fail-under-dimensions", Kind: Dimensions, Range: &engine.Range{Min: 0, Max: 100},
		Flag:   Flag{Name: "fail-under-DIM", Arg: "N", Section: sectionGates, Help: `DIM: robustness, validation, error-quality, liveness, performance, schema`},
		Config: "fail-under-dimensions",
	},
	{
		Key: "fail-on", Kind: List,
		Flag: Flag{Name: "fail-on", Arg: "KIND,...", Section: sectionGates, Help: `any finding of KIND: FAIL-ON-KINDS; none: no finding gate at all
(kinds replace the default gate: default,envelope adds to it;
checks: every protocol and lifecycle check's code; security: every
proved security flaw)`},
		Input:  Input{Name: "fail-on"},
		Config: "fail-on",
	},
	{
		Key: "baseline", Kind: Path,
		Flag: Flag{Name: "baseline", Arg: "FILE", Section: sectionGates, Help: `a previous JSON report: only findings absent from it fail (any new
critical or error one, or new ones of the --fail-on kinds)`},
		Input: Input{Name: "baseline"},
	},
	{
		Key: "fail-on-new", Kind: Bool, Default: false,
		Flag: Flag{Name: "fail-on-new", Section: sectionGates, Help: `the same as --baseline alone (needs --baseline)`},
	},
	// The config file, and the sections only it has.
	{
		Key: "config", Kind: Path,
		Flag: Flag{Name: "config", Arg: "FILE", Section: sectionConfiguration, Help: `read FILE (default: .mcp-fuzz.yml when it exists): per-tool example
arguments, skip/include and timeouts, expected findings, lifecycle
pairs of create/read/delete tools (--sequential), and defaults
for the flags above (a flag given here wins)`},
		Input: Input{Name: "config"},
	},
	{
		Key: "per-tool", Kind: FileSection,
		Config: "per-tool",
		Fields: []string{"Examples", "ToolTimeouts", "AlsoCall"},
	},
	{
		Key: "expected", Kind: FileSection,
		Config: "expected",
	},
	{
		Key: "lifecycle", Kind: FileSection,
		Config: "lifecycle",
		Fields: []string{"Lifecycle"},
	},
	// The Action's own: its pull request comment and the files it writes.
	{
		Key: "comment", Kind: String, Default: "auto",
		Values: []string{"auto", "always", "off"},
		Input:  Input{Name: "comment", Default: "auto"},
	},
	{
		Key: "comment-key", Kind: String,
		Input: Input{Name: "comment-key"},
	},
	{
		Key: "github-token", Kind: String,
		Input: Input{Name: "github-token", Default: "${{ github.token }}"},
	},
	{
		Key: "sarif", Kind: Path,
		Input: Input{Name: "sarif"},
	},
	{
		Key: "report", Kind: Path,
		Input: Input{Name: "report"},
	},
	// mcp-fuzz serve's own: the bounds of an agent's audit and what it returns.
	{
		Key: "max-duration", Kind: Duration,
		Param: Param{Name: "max_duration_seconds", Default: 300 * time.Second, Max: 900 * time.Second},
	},
	{
		Key: "report-format", Kind: String,
		Values: []string{"markdown", "json", "none"},
		Param:  Param{Name: "report_format", Default: "markdown"},
	},
	{
		Key: "max-report-chars", Kind: Int,
		Param: Param{Name: "max_report_chars", Default: 8000, Max: 200000},
	},
	{
		Key: "output-path", Kind: Path,
		Param: Param{Name: "output_path"},
	},
}

// inputOrder is the order of action.yml's inputs, which GitHub shows
// them in: the target, what is called, the cases and timeouts, the
// checks, the config file, the gates, then the Action's own.
var inputOrder = []string{
	"command", "url", "headers", "env", "pass-env", "working-directory",
	"no-calls", "include-destructive", "tools", "skip-tools", "cases", "seed", "timeout",
	"startup-timeout", "repeat", "era", "protocol-version", "concurrency", "sequential", "protocol", "security", "box", "config", "secrets",
	"fail-under", "fail-on", "baseline", "comment", "comment-key",
	"github-token", "sarif", "sarif-location", "report",
}

// zeroIsNone spells 0, "no limit" to a user, as the engine's negative
// "none".
func zeroIsNone(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
