package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// options is everything the command line can say.
type options struct {
	cfg     engine.Config
	json    bool
	outputs []string
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

const usageText = `mcp-fuzz: fuzz the tools of an MCP server and judge every answer.

Usage:
  mcp-fuzz [flags] -- COMMAND [ARGS...]   fuzz a stdio server
  mcp-fuzz [flags] --url URL              fuzz a Streamable HTTP (or legacy SSE) server
  mcp-fuzz demo [flags]                   audit the built-in, deliberately flawed demo server
  mcp-fuzz demo-server                    run the demo server alone over stdio
  mcp-fuzz version                        print the version

Target:
  --url URL               HTTP endpoint (Streamable HTTP, falling back to legacy SSE on a 4xx)
  --header 'Name: value'  HTTP header for every request (repeatable; a secret)
  --bearer TOKEN          bearer token (default $MCP_FUZZ_BEARER; a secret)
  --env KEY=VALUE         environment variable for the server process (repeatable; a secret)
  --pass-env NAME         copy NAME from this environment to the server (repeatable)
  --cwd DIR               working directory of the server process
  --startup-timeout T     spawn + initialize + discovery deadline (default 60s)
  --timeout T             per-call deadline (default 15s); T is seconds or a duration
  --slow-ms N             flag a valid call slower than N ms (default 5000), or 3x the median
  --bloat-chars N         flag a valid answer over N characters (default 20000), or 3x the median

Selection:
  --include-destructive   call every tool, not only those annotated readOnlyHint: true
  --tools GLOB,...        call only matching tools (a match is called even if not read-only)
  --skip-tools GLOB,...   never call matching tools

Generation:
  --seed N                case generation seed (default 1)
  --cases N               per-tool case budget (default 40; 0 for no limit)
  --profile P             default | aggressive (adds probe strings to string properties)

Output:
  --json                  write the JSON report to stdout instead of the text report
  -o, --output FILE       write the JSON report to FILE (repeatable; .json)

Exit codes: 0 done, 2 usage or configuration error, 3 could not start or connect to the target.
The server's environment is a minimal allowlist (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
LC_ALL, TMPDIR, TZ) plus --env and --pass-env; never your whole environment.
`

// parseArgs reads the flags of a fuzzing run. Everything after "--" is the
// server command.
func parseArgs(args []string, lookup func(string) (string, bool), stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mcp-fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var env, passEnv, headers, outputs listFlag
	var tools, skip csvFlag
	cases := engine.DefaultCases
	o.cfg.Timeout, o.cfg.StartupTimeout = engine.DefaultTimeout, engine.DefaultStartupTimeout
	fs.StringVar(&o.cfg.URL, "url", "", "")
	fs.Var(&headers, "header", "")
	fs.StringVar(&o.cfg.Bearer, "bearer", "", "")
	fs.Var(&env, "env", "")
	fs.Var(&passEnv, "pass-env", "")
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
	fs.BoolVar(&o.json, "json", false, "")
	fs.Var(&outputs, "o", "")
	fs.Var(&outputs, "output", "")
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
	o.cfg.Command = command
	o.cfg.Env, o.cfg.PassEnv, o.cfg.Headers = env, passEnv, headers
	o.cfg.Tools, o.cfg.SkipTools = tools, skip
	o.outputs = outputs
	for _, f := range outputs {
		if !strings.HasSuffix(strings.ToLower(f), ".json") {
			return o, fmt.Errorf("-o %s: only .json reports are written so far", f)
		}
	}
	return o, nil
}
