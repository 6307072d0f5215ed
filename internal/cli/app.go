package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
)

// Exit codes (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes): see the audit package.
const (
	ExitOK          = audit.ExitOK
	ExitGate        = audit.ExitGate
	ExitUsage       = audit.ExitUsage
	ExitConnect     = audit.ExitConnect
	ExitInterrupted = audit.ExitInterrupted
)

// App is the command line with its environment injected.
type App struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	LookupEnv func(string) (string, bool)
	// Environ lists the whole environment, as os.Environ does, for the
	// secrets of mcp-fuzz's own (see [secret.Own]); nil: none.
	Environ    func() []string
	Version    string
	Executable func() (string, error) // this binary, for the demo
	HTTPClient *http.Client           // for GitHub (comment); nil: http.DefaultClient

	// command is the subcommand running ("report"), whose help a usage
	// error points at; "" for a run.
	command string
}

// Run executes args (without the program name) and returns the exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	if len(args) > 0 {
		if c, ok := lookupCommand(args[0]); ok && asksHelp(args[1:]) {
			fmt.Fprint(a.Stdout, c.usage)
			return ExitOK
		}
		if _, ok := lookupCommand(args[0]); ok {
			a.command = args[0]
		}
		switch args[0] {
		case "help":
			return a.runHelp(args[1:])
		case "list":
			return a.runList(ctx, args[1:])
		case "cases":
			return a.runCases(ctx, args[1:])
		case "init":
			return a.runInit(ctx, args[1:])
		case "demo":
			return a.runDemo(ctx, args[1:])
		case "report":
			return a.runReport(args[1:])
		case "merge":
			return a.runMerge(args[1:])
		case "replay":
			return a.runReplay(ctx, args[1:])
		case "comment":
			return a.runComment(ctx, args[1:])
		case "demo-server":
			if len(args) > 1 {
				return a.usageError(fmt.Errorf("demo-server takes no arguments, got %q", args[1]))
			}
			if err := demo.Serve(ctx, a.Stdin, a.Stdout); err != nil && ctx.Err() == nil {
				fmt.Fprintf(a.Stderr, "mcp-fuzz demo-server: %v\n", err)
				return 1
			}
			return ExitOK
		case "serve":
			return a.runServe(ctx, args[1:])
		case "version", "--version":
			if len(args) > 1 {
				return a.usageError(fmt.Errorf("%s takes no arguments, got %q", args[0], args[1]))
			}
			fmt.Fprintf(a.Stdout, "mcp-fuzz %s\n", a.Version)
			return ExitOK
		}
		if !strings.HasPrefix(args[0], "-") {
			// A mistyped subcommand ("reprot"), not a server command
			// without its "--".
			if err := unknownCommand(args[0]); err != nil {
				return a.usageError(fmt.Errorf("%w (a server command goes after --)", err))
			}
		}
	}
	st, code, done := a.parse(args)
	if done {
		return code
	}
	return a.fuzz(ctx, st)
}

// parse reads the flags of a run. done is true when there is nothing to run
// (help was printed, or a usage error), with the exit code.
func (a *App) parse(args []string) (st audit.Settings, code int, done bool) {
	st, help, err := parseArgs(args)
	switch {
	case help || errors.Is(err, flag.ErrHelp):
		fmt.Fprint(a.Stdout, usageText)
		return st, ExitOK, true
	case err != nil:
		return st, a.usageError(err), true
	}
	return st, 0, false
}

// build turns settings into options (config file applied, all validated);
// ok is false after a usage error was reported, with its exit code.
func (a *App) build(st audit.Settings) (o audit.Options, code int, ok bool) {
	o, err := audit.Build(st, audit.FlagNames, a.LookupEnv)
	if err != nil {
		return o, a.usageError(err), false
	}
	o.Engine.LookupEnv = a.LookupEnv
	if a.Environ != nil {
		o.Engine.OwnSecrets = secret.Own(a.Environ())
	}
	o.Engine.Version = a.Version
	return o, ExitOK, true
}

func (a *App) usageError(err error) int {
	help := "mcp-fuzz --help"
	if a.command != "" && a.command != "help" {
		help = "mcp-fuzz " + a.command + " --help"
	}
	fmt.Fprintf(a.Stderr, "mcp-fuzz: %s\nRun '%s' for usage.\n", audit.Describe(err, audit.FlagNames), help)
	return ExitUsage
}

// runDemo audits the built-in demo server, run as a child process of this
// very binary so that its crashes are real process deaths.
func (a *App) runDemo(ctx context.Context, args []string) int {
	st, code, done := a.parse(args)
	if done {
		return code
	}
	if st.Given.Has("url") || len(st.Command) > 0 {
		return a.usageError(errors.New("demo takes no target: it audits the built-in demo server"))
	}
	self, err := a.Executable()
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz demo: cannot find this binary to start the demo server: %v\n", err)
		return ExitConnect
	}
	st.Command = []string{self, "demo-server"}
	temporary := goRunBuild(self)
	if !st.Given.Has("timeout") {
		// The demo has a tool that hangs on purpose; do not make people wait 15 s.
		st.Given.Set("timeout", 2*time.Second)
	}
	if !st.Given.Has("sarif-category") {
		// The demo server's command is this binary's path, which differs
		// between installs: its code scanning category is fixed instead.
		st.Given.Set("sarif-category", "demo")
	}
	// Its findings are on purpose: the demo is not gated unless asked to be.
	st.NoDefaultGate = true
	if !st.Given.Has("config") {
		// The project's .mcp-fuzz.yml is about the project's server, not
		// the demo's; --config still reads a file.
		st.Given.Set("config", os.DevNull)
	}
	o, sarif, outs, code, ok := a.prepare(st)
	if !ok {
		// A usage error is not preceded by a banner saying the audit began.
		return code
	}
	defer outs.close()
	o.Engine.TemporaryProgram = temporary
	fmt.Fprintln(a.Stderr, "mcp-fuzz demo: auditing the built-in demo server (deliberately flawed: every verdict shows up)")
	if temporary {
		fmt.Fprintln(a.Stderr, "mcp-fuzz demo: this mcp-fuzz is a temporary go run build, gone when it exits: the reproducers are `mcp-fuzz replay REPORT.json CASE-ID` and `mcp-fuzz demo-server` (go install ./cmd/mcp-fuzz puts mcp-fuzz on your PATH; or write go run ./cmd/mcp-fuzz in its place)")
	}
	code = a.audit(ctx, o, sarif, outs)
	if code == ExitOK {
		fmt.Fprintf(a.Stderr, "mcp-fuzz demo: exit 0 because the demo's flaws are deliberate; on your own server these findings fail the default gate (fail-on %s) and exit 1\n", score.DefaultFailOnNames())
	}
	return code
}

func (a *App) fuzz(ctx context.Context, st audit.Settings) int {
	o, sarif, outs, code, ok := a.prepare(st)
	if !ok {
		return code
	}
	defer outs.close()
	return a.audit(ctx, o, sarif, outs)
}

// prepare builds and validates the options of an audit, the SARIF ones
// included, and opens the directory of each -o file (see [openOutputs]),
// all before the server starts; ok is false after a usage error was
// reported, with its exit code. When ok, the caller closes outs.
func (a *App) prepare(st audit.Settings) (o audit.Options, sarif render.SARIFOptions, outs outputs, code int, ok bool) {
	o, code, ok = a.build(st)
	if !ok {
		return o, sarif, nil, code, false
	}
	// An output that cannot be written is refused now, not after the run.
	for _, path := range o.Outputs {
		if err := boundedfile.CheckWritable(path); err != nil {
			return o, sarif, nil, a.usageError(fmt.Errorf("-o %s: %w", path, err)), false
		}
	}
	if wantsSARIF(o.Format, o.Outputs) {
		var err error
		if sarif, err = a.sarifOptions(o.SARIF); err != nil {
			return o, sarif, nil, a.usageError(err), false
		}
	}
	// The directories are held from now on: the server, started next,
	// cannot redirect the reports by swapping one.
	outs = openOutputs(o.Outputs)
	for _, out := range outs {
		if out.err != nil {
			outs.close()
			return o, sarif, nil, a.usageError(fmt.Errorf("-o %s: %w", out.path, out.err)), false
		}
	}
	return o, sarif, outs, ExitOK, true
}

// audit runs the audit o, built and validated, and reports it, to the
// outputs opened before it (the partial report of an interrupted run
// included).
func (a *App) audit(ctx context.Context, o audit.Options, sarif render.SARIFOptions, outs outputs) int {
	p := a.newProgressFor()
	o.Engine.Progress = p.event
	out := audit.Run(ctx, o)
	p.close()
	switch {
	case out.Interrupted() && out.Report != nil:
		// Write what the run has: a partial report is still evidence.
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %s; writing the partial report\n", escape.Terminal(out.Report.EndedEarly, 0))
		a.emit(out.Report, o.Format, outs, sarif, o.Verbose)
		return out.Code
	case out.Interrupted():
		fmt.Fprintf(a.Stderr, "mcp-fuzz: interrupted (%v) before the server was ready; nothing to report\n", context.Cause(ctx))
		return out.Code
	case out.Code == ExitUsage:
		return a.usageError(out.Err)
	case out.Err != nil:
		a.printError(out.Err)
		return out.Code
	}
	emitted := a.emit(out.Report, o.Format, outs, sarif, o.Verbose)
	for _, w := range out.Warnings {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", escape.Terminal(w, 0))
	}
	// A gate's text names finding ids, which hold the server's tool names:
	// one line each, no escape sequence.
	for _, f := range out.Gates.Failures {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: gate missed: %s\n", escape.Terminal(f, 0))
	}
	if emitted != ExitOK {
		// An output that could not be written outranks the gate: the
		// run's evidence is incomplete.
		return emitted
	}
	return out.Code
}

// goRunBuild says whether path is a program that `go run` built: it lives
// in the go command's temporary work directory ($WORK/b001/exe/NAME under a
// go-build* directory) and is deleted when go run exits, so no reproducer
// may name it. A `go test` binary ($WORK/b001/NAME.test) is not one.
func goRunBuild(path string) bool {
	dir := filepath.Dir(filepath.Clean(path))
	if filepath.Base(dir) != "exe" {
		return false
	}
	for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if strings.HasPrefix(filepath.Base(d), "go-build") {
			return true
		}
	}
	return false
}

// printError prints err on stderr. It may quote the server (its stderr
// and stdout at startup, a refusal's message): no escape sequence of its
// reaches the terminal, and each line of a multi-line error (the quoted
// lines of a failed start) is a line of its own, indented.
func (a *App) printError(err error) {
	lines := strings.Split(err.Error(), "\n")
	fmt.Fprintf(a.Stderr, "mcp-fuzz: %s\n", escape.Terminal(lines[0], 0))
	for _, l := range lines[1:] {
		fmt.Fprintf(a.Stderr, "  %s\n", escape.Terminal(l, 0))
	}
}
