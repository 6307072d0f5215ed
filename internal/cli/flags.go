package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// csvFlag collects comma-separated values, repeatable.
type csvFlag []string

func (c *csvFlag) String() string { return strings.Join(*c, ",") }
func (c *csvFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*c = append(*c, p)
		}
	}
	return nil
}

// secondsFlag accepts a Go duration ("30s", "1m") or plain seconds ("30",
// "2.5"); see [audit.ParseSeconds].
type secondsFlag struct{ d *time.Duration }

func (s secondsFlag) String() string {
	if s.d == nil {
		return ""
	}
	return s.d.String()
}

func (s secondsFlag) Set(v string) error {
	d, err := audit.ParseSeconds(v)
	if err != nil {
		return err
	}
	*s.d = d
	return nil
}

// usageText is the --help text; the --fail-on kinds come from the code
// catalogue.
var usageText = strings.Replace(usageTemplate, "FAIL-ON-KINDS", wrapList(failOnNames(), 48, 68, 26), 1)

// failOnNames are the --fail-on kinds as users write them, worst first.
func failOnNames() []string {
	var out []string
	for _, c := range report.Codes() {
		out = append(out, c.FailOn)
	}
	return out
}

// wrapList joins items with ", " in lines of at most first characters for
// the first line and rest for the others, each further line indented by
// indent spaces.
func wrapList(items []string, first, rest, indent int) string {
	var b strings.Builder
	line, width := 0, first
	for i, it := range items {
		word := it
		if i < len(items)-1 {
			word += ","
		}
		if line > 0 && line+1+len(word) > width {
			b.WriteString("\n" + strings.Repeat(" ", indent))
			line, width = 0, rest
		} else if line > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

const usageTemplate = `mcp-fuzz: fuzz the tools of an MCP server and judge every answer.

Usage:
  mcp-fuzz [flags] -- COMMAND [ARGS...]   fuzz a stdio server
  mcp-fuzz [flags] --url URL              fuzz a Streamable HTTP (or legacy SSE) server
  mcp-fuzz demo [flags]                   audit the built-in, deliberately flawed demo server
  mcp-fuzz demo-server                    run the demo server alone over stdio
  mcp-fuzz list [flags] -- COMMAND...     list the tools, which a run would call and why, and
                                          the lint findings; calls nothing (or --url URL)
  mcp-fuzz cases [flags] -- COMMAND...    print the cases a run would send each tool; calls
                                          nothing (or --url URL)
  mcp-fuzz init [flags] -- COMMAND...     write a commented .mcp-fuzz.yml for the server's tools
                                          (or --url URL; -o FILE, --force to replace one)
  mcp-fuzz report FILE.json [-o OUT]...   re-render a saved JSON report (any format)
  mcp-fuzz merge A.json B.json... [-o X]  combine reports of several targets (.md or .json)
  mcp-fuzz replay FILE.json CASE-ID [flags] [-- COMMAND...]
                                          re-run one case (against the recorded target
                                          unless one is given, with the run's --timeout,
                                          era, env and header names unless flags say
                                          otherwise) and print old vs new verdict; exit 1
                                          while it still fails, 0 once fixed; a finding id
                                          works too (ID@legacy: in that era)
  mcp-fuzz comment REPORT.json... --pr N [--repo OWNER/NAME] [--key K]
                                          put reports into the pull request's one mcp-fuzz
                                          comment, as the Action does (token from
                                          GITHUB_TOKEN or GH_TOKEN; see comment --help)
  mcp-fuzz serve                          run mcp-fuzz as an MCP server over stdio, for
                                          agents (see serve --help)
  mcp-fuzz version                        print the version
  mcp-fuzz help [COMMAND]                 this help, or a command's (also: COMMAND --help)

Examples:
  mcp-fuzz -- npx -y @modelcontextprotocol/server-everything
  mcp-fuzz --json --timeout 30 -- ./my-server > report.json
  MCP_FUZZ_BEARER="$TOKEN" mcp-fuzz --url http://127.0.0.1:3001/mcp -o report.md
  mcp-fuzz --tools 'search_*' --cases 0 -- ./my-server
  mcp-fuzz list -- python server.py

Target:
  --url URL               HTTP endpoint (Streamable HTTP, falling back to legacy SSE on a 4xx)
  --header 'Name: value'  HTTP header for every request (repeatable; a secret)
  --bearer TOKEN          bearer token (default $MCP_FUZZ_BEARER; a secret)
  --bearer-file FILE      read the bearer token from FILE (trailing newline dropped);
                          this and $MCP_FUZZ_BEARER keep it off the command line, where
                          other processes can read it
  --env KEY=VALUE         environment variable for the server process (repeatable; a secret
                          when KEY names one, TOKEN, KEY, SECRET, PASS, AUTH, ..., or VALUE
                          looks like a credential; never true/false, numbers, paths, URLs or
                          values under 8 characters)
  --pass-env NAME         copy NAME from this environment to the server (repeatable)
  --secret NAME           treat the value of variable NAME as a secret (repeatable): redact
                          it everywhere, flag its echo as a leak
  --cwd DIR               working directory of the server process
  --era E                 protocol era: auto (default: server/discover first, the initialize
                          handshake when the server does not speak 2026-07-28), modern (the
                          stateless era only; exit 3 when the server does not speak it),
                          legacy (initialize only) or both (audit in each era, report the
                          modern one and the verdicts that differ as era_difference
                          findings; a server of one era is audited once, the report says
                          why); legacy HTTP+SSE is always legacy
  --protocol-version V    the stateless version offered in server/discover (default
                          2026-07-28)
  --startup-timeout T     spawn + server/discover or initialize + tools/list deadline (default 60s)
  --timeout T             per-call deadline (default 15s); T is seconds or a duration
  --slow-ms N             flag a valid call whose median (p50) is over N ms (default 5000),
                          or over 3x the server's median and 250 ms
  --repeat N              time the valid call N times (1 to 20, default 3) and judge slowness
                          by the median; only tools annotated readOnlyHint or idempotentHint
                          are called again, others once
  --concurrency N         after the audit, N sessions (2 to 16; N server processes over
                          stdio) make each confirmed tool's valid call at once (only tools
                          annotated readOnlyHint or destructiveHint false), and N requests
                          go in flight together on one session, one then cancelled:
                          failures together are concurrency_failure findings, mixed-up
                          ids protocol_violation (default 0: none; 60s budget in all)
  --bloat-chars N         flag a valid answer over N characters (default 20000), or 3x the median
  --max-response SIZE     largest answer read, 64KiB to 1GiB (default 4MiB; units KiB, MiB,
                          GiB): the rest of a larger one is counted and discarded, the case
                          flagged bloated
  --max-hangs N           after N hangs of one tool, its remaining cases are not run and the
                          report says so (default 2; 0 never cuts a tool short)
  --parallel N            run N tools at once (1 to 64), each on its own session (its own
                          server process over stdio; default 1: tools that share state on
                          disk would race)

Selection:
  --no-calls              static audit: start (or connect to) the server, list and lint its
                          tools, resources and prompts, and call nothing (no tools/call, no
                          protocol check); graded on Schema alone and labelled "static audit";
                          not with --era both, --repeat, --include-destructive, --tools,
                          --skip-tools, --protocol, --concurrency or --sequential
  --include-destructive   call every tool, not only those annotated readOnlyHint: true
  --protocol              also send the protocol probes: an unknown method and tool, a garbage
                          cursor, params that are not an object, a request without id (and
                          ping and a second initialize in the 2025 era)
  --no-box                start a stdio server without the box: as mcp-fuzz's own user, able
                          to read its environment and memory, signal it and outlive it (the
                          box, on by default: a uid of its own or no capability, Landlock, a
                          PID namespace; the summary's box line says what applied)
  --tools GLOB,...        call only matching tools (a match is called even if not read-only)
  --skip-tools GLOB,...   never call matching tools
  --sequential            lifecycle checks (needs --include-destructive): group tools by the
                          resource their names say (create/add/insert/new, get/read/fetch/
                          retrieve/describe/show/open, delete/remove/destroy), then for each
                          resource with one tool of each and an id argument: create, read,
                          delete, read again; a successful read after the delete is a
                          stale_read finding (error). A create tool taking another
                          resource's id (project_id) also gets parent, child, delete
                          parent, read child: a readable child is orphan_readable (info).
                          Aim it only at a server whose writes are disposable

Generation:
  --seed N                case generation seed (default 1)
  --cases N               per-tool case budget (default 40; 0 for no limit)
  --profile P             default | aggressive (adds probe strings to string properties)

Output:
  --format F              stdout format: text (default), json, markdown, sarif, junit, jsonl, badge
  --json                  same as --format json (text is coloured on a terminal unless
                          NO_COLOR or CI is set)
  --verbose               text: every case and every reproducer, not the summary (which
                          fits $COLUMNS or the terminal, 80 to 120 columns)
  -o, --output FILE       also write FILE, format from its extension (repeatable):
                          .json report, .md Markdown, .sarif SARIF 2.1.0, .xml JUnit,
                          .jsonl full trace, .svg badge
  --sarif-location FILE   the repository file SARIF results point at (code scanning needs
                          one); default: the config file (each tool's per-tool line), else
                          the nearest server.json, package.json, pyproject.toml, setup.py,
                          Cargo.toml, go.mod, pom.xml, build.gradle(.kts), composer.json
                          or Gemfile up to the repository root, else (in Actions) the
                          workflow file; with none, results have no location and code
                          scanning refuses the upload (a warning says so)
  --sarif-category NAME   code scanning category: automationDetails.id is
                          mcp-fuzz/NAME/ (default: the target's command or URL), so
                          uploads for several targets of one commit do not replace
                          each other

Gates (each exits 1 when missed; without any, a run fails on crash,hang,protocol,leak
       and when no tool was tested, except under --no-calls):
  --fail-under N          overall score under N (a run that is not graded fails it; under
                          --no-calls, the Schema score)
  --fail-under-DIM N      DIM: robustness, validation, error-quality, liveness, performance, schema
  --fail-on KIND,...      any finding of KIND: FAIL-ON-KINDS; none: no finding gate at all
                          (kinds replace the default gate: default,envelope adds to it;
                          checks: every protocol and lifecycle check's code)
  --baseline FILE         a previous JSON report: only findings absent from it fail (any new
                          critical or error one, or new ones of the --fail-on kinds)
  --fail-on-new           the same as --baseline alone (needs --baseline)

Configuration:
  --config FILE           read FILE (default: .mcp-fuzz.yml when it exists): per-tool example
                          arguments, skip/include and timeouts, expected findings, lifecycle
                          pairs of create/read/delete tools (--sequential), and defaults
                          for the flags above (a flag given here wins)

Exit codes: 0 done (and every gate passed), 1 a gate missed, 2 usage or configuration
error, 3 could not start or connect to the target, 130 interrupted by SIGINT (143 by
SIGTERM; the partial report is written to every -o file).
The server's environment is a minimal allowlist (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
LC_ALL, TMPDIR, TZ) plus --env and --pass-env; never your whole environment.
`

// parseArgs reads the flags of a fuzzing run into [audit.Settings]; help
// is true for -h and --help. Everything after "--" is the server command.
func parseArgs(args []string) (st audit.Settings, help bool, err error) {
	fs := flag.NewFlagSet("mcp-fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var env, passEnv, headers, outputs, secrets listFlag
	var tools, skip, failOn csvFlag
	var timeout, startupTimeout time.Duration
	fs.StringVar(&st.URL, "url", "", "")
	fs.Var(&headers, "header", "")
	fs.StringVar(&st.Bearer, "bearer", "", "")
	fs.StringVar(&st.BearerFile, "bearer-file", "", "")
	fs.Var(&env, "env", "")
	fs.Var(&passEnv, "pass-env", "")
	fs.Var(&secrets, "secret", "")
	fs.StringVar(&st.Cwd, "cwd", "", "")
	fs.StringVar(&st.Era, "era", "", "")
	fs.StringVar(&st.ProtocolVersion, "protocol-version", "", "")
	fs.Var(secondsFlag{&startupTimeout}, "startup-timeout", "")
	fs.Var(secondsFlag{&timeout}, "timeout", "")
	slowMs := fs.Int("slow-ms", engine.DefaultSlowMs, "")
	bloatChars := fs.Int("bloat-chars", engine.DefaultBloatChars, "")
	noCalls := fs.Bool("no-calls", false, "")
	destructive := fs.Bool("include-destructive", false, "")
	sequential := fs.Bool("sequential", false, "")
	protocol := fs.Bool("protocol", false, "")
	noBox := fs.Bool("no-box", false, "")
	fs.Var(&tools, "tools", "")
	fs.Var(&skip, "skip-tools", "")
	seed := fs.Int64("seed", engine.DefaultSeed, "")
	cases := fs.Int("cases", engine.DefaultCases, "")
	fs.StringVar(&st.Profile, "profile", "", "")
	parallel := fs.Int("parallel", 1, "")
	fs.StringVar(&st.MaxResponse, "max-response", "", "")
	hangs := fs.Int("max-hangs", engine.DefaultMaxHangs, "")
	repeat := fs.Int("repeat", engine.DefaultRepeat, "")
	concurrency := fs.Int("concurrency", 0, "")
	jsonOut := fs.Bool("json", false, "")
	fs.StringVar(&st.Format, "format", "text", "")
	fs.BoolVar(&st.Verbose, "verbose", false, "")
	failUnder := fs.Int("fail-under", -1, "")
	dimGates := map[string]*int{}
	for _, d := range dimensionFlags {
		dimGates[d] = fs.Int("fail-under-"+d, -1, "")
	}
	fs.Var(&failOn, "fail-on", "")
	fs.StringVar(&st.Baseline, "baseline", "", "")
	fs.BoolVar(&st.FailOnNew, "fail-on-new", false, "")
	fs.Var(&outputs, "o", "")
	fs.Var(&outputs, "output", "")
	fs.StringVar(&st.Config, "config", "", "")
	fs.StringVar(&st.SARIFLocation, "sarif-location", "", "")
	fs.StringVar(&st.SARIFCategory, "sarif-category", "", "")
	fs.BoolVar(&help, "help", false, "")
	fs.BoolVar(&help, "h", false, "")

	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	if err := fs.Parse(args); err != nil {
		return st, help, flagError(fs, err)
	}
	if fs.NArg() > 0 {
		if _, ok := lookupCommand(fs.Arg(0)); ok {
			// "mcp-fuzz --verbose demo": a subcommand after flags of a run.
			return st, help, fmt.Errorf("unexpected argument %q: a command comes first (mcp-fuzz %s [flags]); a server command goes after --", fs.Arg(0), fs.Arg(0))
		}
		return st, help, fmt.Errorf("unexpected argument %q (put the server command after --)", fs.Arg(0))
	}
	// Only what was given goes into the settings: the config file and the
	// defaults decide the rest.
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "timeout":
			st.Timeout = &timeout
		case "startup-timeout":
			st.StartupTimeout = &startupTimeout
		case "slow-ms":
			st.SlowMs = slowMs
		case "bloat-chars":
			st.BloatChars = bloatChars
		case "no-calls":
			st.NoCalls = noCalls
		case "include-destructive":
			st.IncludeDestructive = destructive
		case "sequential":
			st.Sequential = sequential
		case "protocol":
			st.Protocol = protocol
		case "no-box":
			on := !*noBox
			st.Box = &on
		case "seed":
			st.Seed = seed
		case "cases":
			st.Cases = cases
		case "parallel":
			st.Parallel = parallel
		case "max-hangs":
			st.MaxHangs = hangs
		case "repeat":
			st.Repeat = repeat
		case "concurrency":
			st.Concurrency = concurrency
		case "fail-under":
			st.FailUnder = failUnder
		}
		if d, ok := strings.CutPrefix(f.Name, "fail-under-"); ok {
			if st.FailUnderDim == nil {
				st.FailUnderDim = map[string]int{}
			}
			st.FailUnderDim[d] = *dimGates[d]
		}
	})
	st.Command = command
	st.Env, st.PassEnv, st.Headers, st.Secrets = env, passEnv, headers, secrets
	st.Tools, st.SkipTools, st.FailOn, st.Outputs = tools, skip, failOn, outputs
	for _, f := range outputs {
		if _, err := formatOf(f); err != nil {
			return st, help, err
		}
	}
	if *jsonOut {
		st.Format = "json"
	}
	return st, help, checkFormat(st.Format)
}

// dimensionFlags are the dimensions with a --fail-under-DIM flag.
var dimensionFlags = []string{"robustness", "validation", "error-quality", "liveness", "performance", "schema"}

// The errors of package flag, which spell a flag with one dash and say
// "parse error" for a value that is not a number.
var (
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoValue  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadBool  = regexp.MustCompile(`^invalid boolean value (".*") for -+([^:]+): `)
	flagBadValue = regexp.MustCompile(`^invalid value (".*") for flag -+([^:]+): (.*)$`)
)

// flagError rewords an error of fs.Parse as the help text spells flags
// (--concurrency, -o), naming the nearest flags for an unknown one and
// what a numeric or boolean flag wants, so that "--concurency 4" or
// "--concurrency abc" is not left at "-concurency" or "parse error".
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := flagUnknown.FindStringSubmatch(msg); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, dashed(f.Name)) })
		return fmt.Errorf("unknown flag %s%s", dashed(m[1]), suggest.Hint(dashed(m[1]), names))
	}
	if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value", dashed(m[1]))
	}
	if m := flagBadBool.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s=%s: want true or false (or %s alone for true)", dashed(m[2]), m[1], dashed(m[2]))
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		why := m[3]
		var g flag.Getter
		if f := fs.Lookup(m[2]); f != nil {
			g, _ = f.Value.(flag.Getter)
		}
		if g != nil {
			switch g.Get().(type) {
			case int, int64:
				why = "want a whole number"
				if strings.HasSuffix(m[3], "value out of range") {
					why = "out of range"
				}
			}
		}
		return fmt.Errorf("%s %s: %s", dashed(m[2]), m[1], why)
	}
	return errors.New(msg)
}

// dashed spells a flag as the help text does: -o, --timeout.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}
