package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/score"
)

// options is everything the command line can say.
type options struct {
	cfg     engine.Config
	format  string // of stdout: text, json, markdown, ...
	outputs []string
	gates   score.Gates
	help    bool
}

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
// "2.5"), as the Python mcp-fuzz CLI does.
type secondsFlag struct{ d *time.Duration }

func (s secondsFlag) String() string {
	if s.d == nil {
		return ""
	}
	return s.d.String()
}

func (s secondsFlag) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 {
			return errors.New("must be positive")
		}
		*s.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want seconds or a duration like 30s")
	}
	if d <= 0 {
		return errors.New("must be positive")
	}
	*s.d = d
	return nil
}

// sizeFlag accepts a byte count, plain ("65536") or with a unit: KiB, MiB,
// GiB (K, M, G, KB, MB and GB are read as the same binary units).
type sizeFlag struct {
	n     *int
	given *string // as typed, for messages
}

func (s sizeFlag) String() string {
	switch {
	case s.given != nil && *s.given != "":
		return *s.given
	case s.n != nil:
		return strconv.Itoa(*s.n)
	}
	return ""
}

func (s sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s.n, *s.given = n, v
	return nil
}

func parseSize(v string) (int, error) {
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

const usageText = `mcp-fuzz: fuzz the tools of an MCP server and judge every answer.

Usage:
  mcp-fuzz [flags] -- COMMAND [ARGS...]   fuzz a stdio server
  mcp-fuzz [flags] --url URL              fuzz a Streamable HTTP (or legacy SSE) server
  mcp-fuzz demo [flags]                   audit the built-in, deliberately flawed demo server
  mcp-fuzz demo-server                    run the demo server alone over stdio
  mcp-fuzz report FILE.json [-o OUT]...   re-render a saved JSON report (any format)
  mcp-fuzz merge A.json B.json... [-o X]  combine reports of several targets (.md or .json)
  mcp-fuzz replay FILE.json CASE-ID [flags] [-- COMMAND...]
                                          re-run one case (against the recorded target
                                          unless one is given) and print old vs new verdict
  mcp-fuzz version                        print the version

Target:
  --url URL               HTTP endpoint (Streamable HTTP, falling back to legacy SSE on a 4xx)
  --header 'Name: value'  HTTP header for every request (repeatable; a secret)
  --bearer TOKEN          bearer token (default $MCP_FUZZ_BEARER; a secret)
  --env KEY=VALUE         environment variable for the server process (repeatable; a secret
                          when KEY names one, TOKEN, KEY, SECRET, PASS, AUTH, ..., or VALUE
                          looks like a credential; never true/false, numbers, paths, URLs or
                          values under 8 characters)
  --pass-env NAME         copy NAME from this environment to the server (repeatable)
  --secret NAME           treat the value of variable NAME as a secret (repeatable): redact
                          it everywhere, flag its echo as a leak
  --cwd DIR               working directory of the server process
  --startup-timeout T     spawn + initialize + discovery deadline (default 60s)
  --timeout T             per-call deadline (default 15s); T is seconds or a duration
  --slow-ms N             flag a valid call slower than N ms (default 5000), or 3x the median
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
  --include-destructive   call every tool, not only those annotated readOnlyHint: true
  --tools GLOB,...        call only matching tools (a match is called even if not read-only)
  --skip-tools GLOB,...   never call matching tools

Generation:
  --seed N                case generation seed (default 1)
  --cases N               per-tool case budget (default 40; 0 for no limit)
  --profile P             default | aggressive (adds probe strings to string properties)

Output:
  --format F              stdout format: text (default), json, markdown, sarif, junit, jsonl, badge
  --json                  same as --format json (text is coloured on a terminal unless
                          NO_COLOR or CI is set)
  -o, --output FILE       also write FILE, format from its extension (repeatable):
                          .json report, .md Markdown, .sarif SARIF 2.1.0, .xml JUnit,
                          .jsonl full trace, .svg badge

Gates (each exits 1 when missed):
  --fail-under N          overall score under N (a run that is not graded fails it)
  --fail-under-DIM N      DIM: robustness, validation, error-quality, liveness, performance, schema
  --fail-on KIND,...      any finding of KIND: crash, hang, protocol, leak, accepted,
                          output_violation, empty_success, errored, stderr_panic, slow, bloated
  --baseline FILE         a previous JSON report; with --fail-on-new only findings absent
  --fail-on-new           from it fail

Configuration:
  --config FILE           read FILE (default: .mcp-fuzz.yml when it exists): per-tool example
                          arguments, skip/include and timeouts, expected findings, and
                          defaults for the flags above (a flag given here wins)

Exit codes: 0 done (and every gate passed), 1 a gate missed, 2 usage or configuration
error, 3 could not start or connect to the target, 130 interrupted by SIGINT (143 by
SIGTERM; the partial report is written to every -o file).
The server's environment is a minimal allowlist (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
LC_ALL, TMPDIR, TZ) plus --env and --pass-env; never your whole environment.
`

// parseArgs reads the flags of a fuzzing run. Everything after "--" is the
// server command.
func parseArgs(args []string, lookup func(string) (string, bool), stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mcp-fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var env, passEnv, headers, outputs, secrets listFlag
	var tools, skip csvFlag
	cases := engine.DefaultCases
	o.cfg.Timeout, o.cfg.StartupTimeout = engine.DefaultTimeout, engine.DefaultStartupTimeout
	fs.StringVar(&o.cfg.URL, "url", "", "")
	fs.Var(&headers, "header", "")
	fs.StringVar(&o.cfg.Bearer, "bearer", "", "")
	fs.Var(&env, "env", "")
	fs.Var(&passEnv, "pass-env", "")
	fs.Var(&secrets, "secret", "")
	fs.StringVar(&o.cfg.Cwd, "cwd", "", "")
	fs.Var(secondsFlag{&o.cfg.StartupTimeout}, "startup-timeout", "")
	fs.Var(secondsFlag{&o.cfg.Timeout}, "timeout", "")
	fs.IntVar(&o.cfg.SlowMs, "slow-ms", engine.DefaultSlowMs, "")
	fs.IntVar(&o.cfg.BloatChars, "bloat-chars", engine.DefaultBloatChars, "")
	fs.BoolVar(&o.cfg.IncludeDestructive, "include-destructive", false, "")
	fs.Var(&tools, "tools", "")
	fs.Var(&skip, "skip-tools", "")
	fs.Int64Var(&o.cfg.Seed, "seed", engine.DefaultSeed, "")
	fs.IntVar(&cases, "cases", engine.DefaultCases, "")
	fs.StringVar(&o.cfg.Profile, "profile", "default", "")
	fs.IntVar(&o.cfg.Parallel, "parallel", 1, "")
	o.cfg.MaxResponse = engine.DefaultMaxResponse
	fs.Var(sizeFlag{&o.cfg.MaxResponse, new(string)}, "max-response", "")
	hangs := fs.Int("max-hangs", engine.DefaultMaxHangs, "")
	jsonOut := fs.Bool("json", false, "")
	fs.StringVar(&o.format, "format", "text", "")
	failUnder := fs.Int("fail-under", -1, "")
	dimGates := map[string]*int{}
	for _, d := range dimensionFlags {
		dimGates[d] = fs.Int("fail-under-"+d, -1, "")
	}
	var failOn csvFlag
	fs.Var(&failOn, "fail-on", "")
	baseline := fs.String("baseline", "", "")
	fs.BoolVar(&o.gates.FailOnNew, "fail-on-new", false, "")
	fs.Var(&outputs, "o", "")
	fs.Var(&outputs, "output", "")
	configPath := fs.String("config", "", "")
	fs.BoolVar(&o.help, "help", false, "")
	fs.BoolVar(&o.help, "h", false, "")

	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (put the server command after --)", fs.Arg(0))
	}
	if o.cfg.Bearer == "" {
		o.cfg.Bearer, _ = lookup("MCP_FUZZ_BEARER")
	}
	if cases < 0 {
		return o, fmt.Errorf("--cases %d: must be 0 (no limit) or more", cases)
	}
	if cases == 0 {
		cases = -1 // the engine's "unlimited"
	}
	o.cfg.Cases = cases
	if *hangs < 0 {
		return o, fmt.Errorf("--max-hangs %d: must be 0 (never cut a tool short) or more", *hangs)
	}
	o.cfg.MaxHangs = maxHangs(*hangs)
	o.cfg.Command = command
	o.cfg.Env, o.cfg.PassEnv, o.cfg.Headers, o.cfg.Secrets = env, passEnv, headers, secrets
	o.cfg.Tools, o.cfg.SkipTools = tools, skip
	o.outputs = outputs
	for _, f := range outputs {
		if _, err := formatOf(f); err != nil {
			return o, err
		}
	}
	if *jsonOut {
		o.format = "json"
	}
	if err := checkFormat(o.format); err != nil {
		return o, err
	}
	file, err := loadConfig(*configPath)
	if err != nil {
		return o, err
	}
	if file != nil {
		applyConfig(&o, file, set, failUnder, &failOn)
		if file.MaxResponse != "" && !set["max-response"] {
			if o.cfg.MaxResponse, err = parseSize(file.MaxResponse); err != nil {
				return o, fmt.Errorf("config max-response %q: %w", file.MaxResponse, err)
			}
		}
	}
	// Where a value came from, for its error message.
	source := func(flagName, given string) string {
		if set[flagName] || file == nil {
			return "--" + flagName + " " + given
		}
		return "config " + flagName + ": " + given
	}
	if o.cfg.MaxResponse < engine.MinMaxResponse || o.cfg.MaxResponse > 1<<30 {
		given := fs.Lookup("max-response").Value.String()
		if !set["max-response"] && file != nil {
			given = file.MaxResponse
		}
		return o, fmt.Errorf("%s: want 64KiB to 1GiB", source("max-response", given))
	}
	if o.cfg.Parallel < 1 || o.cfg.Parallel > engine.MaxParallel {
		return o, fmt.Errorf("%s: want 1 to %d", source("parallel", fmt.Sprint(o.cfg.Parallel)), engine.MaxParallel)
	}
	if file != nil && file.MaxHangs != nil && *file.MaxHangs < 0 && !set["max-hangs"] {
		return o, fmt.Errorf("config max-hangs: %d: must be 0 (never cut a tool short) or more", *file.MaxHangs)
	}
	if file != nil && file.Cases != nil && *file.Cases < 0 && !set["cases"] {
		return o, fmt.Errorf("config cases: %d: must be 0 (no limit) or more", *file.Cases)
	}
	if err := o.readGates(*failUnder, dimGates, failOn, *baseline); err != nil {
		return o, err
	}
	if file != nil {
		for d, v := range file.FailUnderDim {
			if dimGates[d] != nil && set["fail-under-"+d] {
				continue
			}
			key, err := score.ParseDimension(d)
			if err != nil {
				return o, fmt.Errorf("config fail-under-dimensions: %w", err)
			}
			if o.gates.FailUnderDim == nil {
				o.gates.FailUnderDim = map[string]int{}
			}
			o.gates.FailUnderDim[key] = v
		}
	}
	return o, nil
}

// maxHangs maps the documented "--max-hangs 0 never cuts a tool short" onto
// the engine's negative value for it.
func maxHangs(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// dimensionFlags are the dimensions with a --fail-under-DIM flag.
var dimensionFlags = []string{"robustness", "validation", "error-quality", "liveness", "performance", "schema"}

func (o *options) readGates(failUnder int, dims map[string]*int, failOn []string, baseline string) error {
	if failUnder >= 0 {
		if failUnder > 100 {
			return fmt.Errorf("--fail-under %d: want 0 to 100", failUnder)
		}
		o.gates.FailUnder = &failUnder
	}
	for name, v := range dims {
		if *v < 0 {
			continue
		}
		if *v > 100 {
			return fmt.Errorf("--fail-under-%s %d: want 0 to 100", name, *v)
		}
		key, err := score.ParseDimension(name)
		if err != nil {
			return err
		}
		if o.gates.FailUnderDim == nil {
			o.gates.FailUnderDim = map[string]int{}
		}
		o.gates.FailUnderDim[key] = *v
	}
	if len(failOn) > 0 {
		kinds, err := score.ParseFailOn(strings.Join(failOn, ","))
		if err != nil {
			return fmt.Errorf("--fail-on: %w", err)
		}
		o.gates.FailOn = kinds
	}
	if baseline != "" {
		b, err := os.ReadFile(baseline)
		if err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
		var rep report.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("--baseline %s: not an mcp-fuzz JSON report: %v", baseline, err)
		}
		o.gates.Baseline = &rep
	} else if o.gates.FailOnNew {
		return fmt.Errorf("--fail-on-new needs --baseline FILE (a previous JSON report)")
	}
	return nil
}
