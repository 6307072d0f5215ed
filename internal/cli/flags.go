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
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
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
// "2.5"); see [options.ParseSeconds].
type secondsFlag struct{ d *time.Duration }

func (s secondsFlag) String() string {
	if s.d == nil {
		return ""
	}
	return s.d.String()
}

func (s secondsFlag) Set(v string) error {
	d, err := options.ParseSeconds(v)
	if err != nil {
		return err
	}
	*s.d = d
	return nil
}

// usageText is the --help text: the flags of the table (package options)
// under their headings, the --fail-on kinds from the code catalogue.
var usageText = strings.Replace(usageHead+flagsHelp()+usageTail, "FAIL-ON-KINDS", wrapList(failOnNames(), 48, 68, 26), 1)

// sectionTitles are the headings of --help's flag sections, by the
// sections of the table.
var sectionTitles = map[string]string{
	"Target":     "Target:",
	"Selection":  "Selection:",
	"Generation": "Generation:",
	"Output":     "Output:",
	"Gates": `Gates (each exits 1 when missed; without any, a run fails on security,crash,hang,protocol,leak
       and when no tool was tested, except under --no-calls):`,
	"Configuration": "Configuration:",
}

// flagsHelp lists the flags of the table under their sections' headings:
// each flag with its value's name, its help from the 27th column.
func flagsHelp() string {
	var b strings.Builder
	for _, section := range options.Sections {
		b.WriteString("\n" + sectionTitles[section] + "\n")
		for _, o := range options.All() {
			if o.Flag.Name == "" || o.Flag.Section != section {
				continue
			}
			help := strings.ReplaceAll(o.Flag.Help, "\n", "\n"+strings.Repeat(" ", 26))
			fmt.Fprintf(&b, "  %-24s%s\n", o.Flag.Spec(), help)
		}
	}
	return b.String()
}

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

const usageHead = `mcp-fuzz: fuzz the tools of an MCP server and judge every answer.

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
`

const usageTail = `
Exit codes: 0 done (and every gate passed), 1 a gate missed, 2 usage or configuration
error, 3 could not start or connect to the target, 130 interrupted by SIGINT (143 by
SIGTERM; the partial report is written to every -o file).
The server's environment is a minimal allowlist (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG,
LC_ALL, TMPDIR, TZ) plus --env and --pass-env; never your whole environment.
`

// parseArgs reads the flags of a fuzzing run, those of the table (package
// options), into [audit.Settings]; help is true for -h and --help.
// Everything after "--" is the server command. The format is always
// given: text unless --format or --json says otherwise.
func parseArgs(args []string) (st audit.Settings, help bool, err error) {
	fs := flag.NewFlagSet("mcp-fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := registerFlags(fs)
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
	dims := map[string]int{}
	fs.Visit(func(f *flag.Flag) {
		v, ok := flags[f.Name]
		switch {
		case !ok:
		case v.dimension != "":
			dims[v.dimension] = v.value().(int)
		default:
			st.Given.Set(v.key, v.value())
		}
	})
	st.Given.Set("fail-under-dimensions", dims)
	st.Command = command
	for _, f := range st.Given.List("output") {
		if _, err := formatOf(f); err != nil {
			return st, help, err
		}
	}
	format, _ := options.Lookup("format")
	if !st.Given.Has("format") {
		st.Given.Set("format", format.Default)
	}
	if st.Given.True("json") {
		st.Given.Set("format", "json")
	}
	return st, help, checkFormat(st.Given.String("format"))
}

// flagValue reads a flag of the table as its setting's value.
type flagValue struct {
	key   string
	value func() any
	// dimension is the score dimension of a --fail-under-DIM flag.
	dimension string
}

// registerFlags defines a flag on fs for each setting of the table that
// has one, by its kind, and returns how to read each, by flag name.
func registerFlags(fs *flag.FlagSet) map[string]flagValue {
	flags := map[string]flagValue{}
	for _, o := range options.All() {
		f := o.Flag
		if f.Name == "" {
			continue
		}
		var value func() any
		switch o.Kind {
		case options.Bool:
			p := fs.Bool(f.Name, false, "")
			value = func() any { return *p != f.Negated }
		case options.Int:
			p := fs.Int(f.Name, 0, "")
			value = func() any { return *p }
		case options.Int64:
			p := fs.Int64(f.Name, 0, "")
			value = func() any { return *p }
		case options.Duration:
			d := new(time.Duration)
			fs.Var(secondsFlag{d}, f.Name, "")
			value = func() any { return *d }
		case options.Lines, options.Names:
			l := new(listFlag)
			fs.Var(l, f.Name, "")
			if f.Short != "" {
				fs.Var(l, f.Short, "")
			}
			value = func() any { return []string(*l) }
		case options.List:
			l := new(csvFlag)
			fs.Var(l, f.Name, "")
			value = func() any { return []string(*l) }
		case options.Dimensions:
			for _, d := range dimensionFlags {
				p := fs.Int("fail-under-"+d, 0, "")
				flags["fail-under-"+d] = flagValue{key: o.Key, dimension: d, value: func() any { return *p }}
			}
			continue
		default: // Size, String, Path
			p := fs.String(f.Name, "", "")
			value = func() any { return *p }
		}
		flags[f.Name] = flagValue{key: o.Key, value: value}
		if f.Short != "" {
			flags[f.Short] = flags[f.Name]
		}
	}
	return flags
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
