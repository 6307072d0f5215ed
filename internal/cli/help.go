package cli

import (
	"fmt"
	"github.com/mcp-fuzz/mcp-fuzz/internal/serve"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
)

// command is one subcommand's help: what `mcp-fuzz help NAME` and
// `mcp-fuzz NAME --help` print.
type command struct {
	name  string
	usage string // the whole help text, "Usage: ..." first
}

// commands are the subcommands with help of their own, in the order the
// main help lists them.
var commands = []command{
	{"demo", demoUsage},
	{"demo-server", demoServerUsage},
	{"list", listUsage},
	{"cases", casesUsage},
	{"init", initUsage},
	{"report", reportUsage},
	{"merge", mergeUsage},
	{"replay", replayUsage},
	{"comment", commentUsage},
	{"serve", serve.Usage},
	{"version", versionUsage},
	{"help", helpUsage},
}

// lookupCommand returns the help of subcommand name.
func lookupCommand(name string) (command, bool) {
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// commandNames are the subcommands' names, for "did you mean".
func commandNames() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// unknownCommand is the error for a first argument that is no subcommand
// but near one ("reprot"); nil when it is near none, which leaves it to
// the flags of a run to refuse.
func unknownCommand(name string) error {
	if hint := suggest.Hint(name, commandNames()); hint != "" {
		return fmt.Errorf("unknown command %q%s", name, hint)
	}
	return nil
}

// asksHelp reports whether args, the arguments of a subcommand, ask for
// its help: -h, -help or --help before any "--" (after it they are the
// server command's).
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// runHelp is `mcp-fuzz help [COMMAND]`.
func (a *App) runHelp(args []string) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(a.Stdout, usageText)
		return ExitOK
	case len(args) > 1:
		return a.usageError(fmt.Errorf("usage: mcp-fuzz help [COMMAND]"))
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		err := unknownCommand(args[0])
		if err == nil {
			err = fmt.Errorf("unknown command %q (commands: %s)", args[0], strings.Join(commandNames(), ", "))
		}
		return a.usageError(err)
	}
	fmt.Fprint(a.Stdout, c.usage)
	return ExitOK
}

// targetFlagsHelp is what list, cases and init say about the flags they
// share with a run.
const targetFlagsHelp = `
Target and selection flags are those of a run (see mcp-fuzz --help):
--url, --header, --bearer, --bearer-file, --env, --pass-env, --secret, --cwd,
--era, --protocol-version, --startup-timeout, --include-destructive, --tools,
--skip-tools, --seed, --cases, --profile and --config (default:
.mcp-fuzz.yml when it exists).
`

const demoUsage = `Usage: mcp-fuzz demo [flags]

Audits the built-in demo server, a child process of this binary whose tools
misbehave on purpose, one way each, so that every verdict shows up. It takes
the flags of a run (see mcp-fuzz --help) but no target; its calls time out
after 2s unless --timeout says otherwise, and it exits 0 unless a gate flag is
given: its findings are deliberate. The project's .mcp-fuzz.yml is not read
(--config still reads a file).

Examples:
  mcp-fuzz demo
  mcp-fuzz demo --tools get_weather -o demo.json -o demo.md
  mcp-fuzz demo --format sarif > demo.sarif
`

const demoServerUsage = `Usage: mcp-fuzz demo-server

Runs the demo server alone: a stdio MCP server (newline-delimited JSON-RPC
on stdin and stdout) whose tools misbehave on purpose. mcp-fuzz demo starts
it; start it yourself to try a client, or as the target of list, cases and
init.

Examples:
  mcp-fuzz -- mcp-fuzz demo-server
  mcp-fuzz list -- mcp-fuzz demo-server
`

const listUsage = `Usage: mcp-fuzz list [flags] -- COMMAND [ARGS...]
       mcp-fuzz list [flags] --url URL

Starts (or connects to) the server, lists its tools and lints their metadata,
and calls nothing. For each tool: its annotations (readOnlyHint,
destructiveHint, idempotentHint), whether a run with the same flags and
config would call it and why, or why not, and how many cases it would get;
then a summary of the lint findings (a static audit, as --no-calls makes).

  --json                  print the listing as JSON instead
` + targetFlagsHelp + `
Examples:
  mcp-fuzz list -- npx -y @modelcontextprotocol/server-everything
  mcp-fuzz list --include-destructive -- ./my-server
  mcp-fuzz list --url http://127.0.0.1:3000/mcp --json | jq '.tools[].name'

Exit status: 0 listed, 2 usage or configuration error, 3 could not connect.
`

const casesUsage = `Usage: mcp-fuzz cases [flags] -- COMMAND [ARGS...]
       mcp-fuzz cases [flags] --url URL

Starts (or connects to) the server, lists its tools and prints the cases a
run with the same flags and config would send each tool it calls, without
calling anything: id, kind, whether the schema forbids the arguments, and
the arguments (over 1 KiB, a descriptor: kind, length, hash and head). The
valid call comes first; the example of a per-tool entry in the config file
replaces it. Tools a run would not call are listed with the reason.

  --json                  print the cases as JSON instead
` + targetFlagsHelp + `
Examples:
  mcp-fuzz cases -- ./my-server
  mcp-fuzz cases --tools search --cases 0 -- ./my-server   # every case of search
  mcp-fuzz cases --seed 7 --profile aggressive --json -- ./my-server > cases.json

Exit status: 0 printed, 2 usage or configuration error, 3 could not connect.
`

const initUsage = `Usage: mcp-fuzz init [flags] -- COMMAND [ARGS...]
       mcp-fuzz init [flags] --url URL

Starts (or connects to) the server, lists its tools and writes a commented
.mcp-fuzz.yml for it: the flag defaults, commented out, and a per-tool entry
for each tool with an example skeleton built from its input schema (the
generated valid call: replace the values with realistic ones, and the valid
call stops being a synthetic-input false positive). Tools a run would not
call (not annotated readOnlyHint: true) get a commented "include: true"
and the others a commented "skip: true", to choose from. The file never
replaces an existing one unless --force is given.

  -o, --output FILE       the file to write (default .mcp-fuzz.yml; - for stdout)
  --force                 replace FILE when it exists
` + targetFlagsHelp + `
Examples:
  mcp-fuzz init -- ./my-server
  mcp-fuzz init --url http://127.0.0.1:3000/mcp -o ci/mcp-fuzz.yml
  mcp-fuzz init -o - -- python server.py | less

Exit status: 0 written, 2 usage or configuration error (or FILE exists),
3 could not connect.
`

const reportUsage = `Usage: mcp-fuzz report FILE.json [-o OUT]... [--format F] [--verbose] [--sarif-location FILE] [--sarif-category NAME]

Re-renders a JSON report saved with -o FILE.json or --json, in any format:
to each -o file (format from the extension: .json, .md, .sarif, .xml, .jsonl,
.svg) and, with --format or without -o, to stdout (default text).

  -o, --output FILE       write FILE (repeatable)
  --format F              stdout format: text, json, markdown, sarif, junit, jsonl, badge
  --verbose               text: every case and every reproducer, not the summary
  --sarif-location FILE   the repository file SARIF results point at
  --sarif-category NAME   the code scanning category (mcp-fuzz/NAME/)

Examples:
  mcp-fuzz report run.json
  mcp-fuzz report run.json --verbose | less
  mcp-fuzz report run.json -o run.md -o run.sarif
  mcp-fuzz report run.json --format junit > junit.xml
`

const mergeUsage = `Usage: mcp-fuzz merge A.json B.json... [-o OUT]... [--format F]

Combines the JSON reports of several targets (a matrix's legs) into one: a
table with a row per target, then each report. Only Markdown and JSON hold
merged reports: -o takes .md and .json, --format markdown (the default on
stdout) and json.

  -o, --output FILE       write FILE (.md or .json; repeatable)
  --format F              stdout format: markdown or json

Examples:
  mcp-fuzz merge reports/*.json -o combined.md
  mcp-fuzz merge a.json b.json --format json > combined.json
`

const replayUsage = `Usage: mcp-fuzz replay FILE.json CASE-ID [flags] [-- COMMAND [ARGS...]]

Re-runs one case of a saved report and prints the old and the new verdict:
against the target the report recorded unless one is given, in the era it
spoke unless --era says otherwise, with the arguments it recorded (compacted
ones regenerated from its seed and checked against their digest). CASE-ID is
a case id (search/wrong_type/limit) or a finding id (search/null/q#crash; with
@legacy or @modern, in that era). It takes the flags of a run (see mcp-fuzz
--help); where they are silent, the run's own: --timeout, --startup-timeout,
--max-response, and the environment variables and headers it named, whose
values are read again from this environment ($NAME, $X_TENANT for header
X-Tenant, $MCP_FUZZ_BEARER for the bearer token, or --bearer-file).

Exit status: 1 while the case still makes a finding, 0 once it makes none,
2 for a usage error, 3 when the target cannot be started.

Examples:
  mcp-fuzz replay run.json search/wrong_type/limit
  mcp-fuzz replay run.json 'echo/oversize/text#string' -- ./my-server --debug
  mcp-fuzz replay run.json 'echo/null/q#crash@legacy'
`

const versionUsage = `Usage: mcp-fuzz version
       mcp-fuzz --version

Prints the version: the release's, else the module version go install
recorded, else the VCS revision of the checkout it was built from (-dirty when
the tree had changes), else dev.
`

const helpUsage = `Usage: mcp-fuzz help [COMMAND]

Prints the help of mcp-fuzz, or of COMMAND (also: mcp-fuzz COMMAND --help).

Examples:
  mcp-fuzz help
  mcp-fuzz help replay
`
