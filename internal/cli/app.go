package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/score"
)

// Exit codes (SPEC §10).
const (
	ExitOK      = 0
	ExitGate    = 1
	ExitUsage   = 2
	ExitConnect = 3
)

// App is the command line with its environment injected.
type App struct {
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	LookupEnv  func(string) (string, bool)
	Version    string
	Executable func() (string, error) // this binary, for the demo
}

// Run executes args (without the program name) and returns the exit code.
func (a *App) Run(ctx context.Context, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "demo":
			return a.runDemo(ctx, args[1:])
		case "report":
			return a.runReport(args[1:])
		case "merge":
			return a.runMerge(args[1:])
		case "replay":
			return a.runReplay(ctx, args[1:])
		case "demo-server":
			if err := demo.Serve(ctx, a.Stdin, a.Stdout); err != nil && ctx.Err() == nil {
				fmt.Fprintf(a.Stderr, "mcp-fuzz demo-server: %v\n", err)
				return 1
			}
			return ExitOK
		case "version", "--version":
			fmt.Fprintf(a.Stdout, "mcp-fuzz %s\n", a.Version)
			return ExitOK
		}
	}
	o, code, done := a.parse(args)
	if done {
		return code
	}
	return a.fuzz(ctx, o)
}

// parse reads the flags of a run. done is true when there is nothing to run
// (help was printed, or a usage error), with the exit code.
func (a *App) parse(args []string) (o options, code int, done bool) {
	o, err := parseArgs(args, a.LookupEnv, a.Stderr)
	switch {
	case o.help || errors.Is(err, flag.ErrHelp):
		fmt.Fprint(a.Stdout, usageText)
		return o, ExitOK, true
	case err != nil:
		return o, a.usageError(err), true
	}
	return o, 0, false
}

func (a *App) usageError(err error) int {
	fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\nRun 'mcp-fuzz --help' for usage.\n", err)
	return ExitUsage
}

// runDemo audits the built-in demo server, run as a child process of this
// very binary so that its crashes are real process deaths.
func (a *App) runDemo(ctx context.Context, args []string) int {
	o, code, done := a.parse(args)
	if done {
		return code
	}
	if o.cfg.URL != "" || len(o.cfg.Command) > 0 {
		return a.usageError(errors.New("demo takes no target: it audits the built-in demo server"))
	}
	self, err := a.Executable()
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz demo: cannot find this binary to start the demo server: %v\n", err)
		return ExitConnect
	}
	o.cfg.Command = []string{self, "demo-server"}
	if !flagGiven(args, "timeout") {
		// The demo has a tool that hangs on purpose; do not make people wait 15 s.
		o.cfg.Timeout = 2 * time.Second
	}
	fmt.Fprintln(a.Stderr, "mcp-fuzz demo: auditing the built-in demo server (deliberately flawed: every verdict shows up)")
	return a.fuzz(ctx, o)
}

func flagGiven(args []string, name string) bool {
	for _, a := range args {
		if a == "-"+name || a == "--"+name || len(a) > len(name)+2 && (a[:len(name)+2] == "--"+name && a[len(name)+2] == '=') {
			return true
		}
	}
	return false
}

func (a *App) fuzz(ctx context.Context, o options) int {
	o.cfg.LookupEnv = a.LookupEnv
	o.cfg.Version = a.Version
	o.cfg.Progress = newProgress(a.Stderr).event
	rep, err := engine.Run(ctx, o.cfg)
	switch {
	case errors.Is(err, engine.ErrInterrupted) && rep != nil:
		// Write what the run has: a partial report is still evidence.
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %s; writing the partial report\n", rep.EndedEarly)
		a.emit(rep, o.format, o.outputs)
		return interruptedCode(ctx)
	case ctx.Err() != nil:
		fmt.Fprintf(a.Stderr, "mcp-fuzz: interrupted (%v) before the server was ready; nothing to report\n", context.Cause(ctx))
		return interruptedCode(ctx)
	case errors.Is(err, engine.ErrConfig):
		return a.usageError(err)
	case errors.Is(err, engine.ErrConnect):
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\n", err)
		return ExitConnect
	case err != nil:
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\n", err)
		return ExitConnect
	}
	if code := a.emit(rep, o.format, o.outputs); code != ExitOK {
		return code
	}
	res := score.Check(rep, o.gates)
	for _, f := range res.Failures {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: gate missed: %s\n", f)
	}
	if !res.Passed {
		return ExitGate
	}
	return ExitOK
}
