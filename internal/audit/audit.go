// Package audit is the one layer between a front end (the command line, the
// GitHub Action) and the engine: typed [Settings] as the front end read them
// become [Options] (config file applied, everything validated, errors spelled
// as that front end's users wrote them), and [Run] takes Options through the
// engine and the gates to a report, a gate result and an exit code.
package audit

import (
	"context"
	"errors"
	"syscall"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/score"
)

// Exit codes (SPEC §10), the same for the command line and the Action.
const (
	ExitOK      = 0 // done, and every gate passed
	ExitGate    = 1 // a gate missed
	ExitUsage   = 2 // bad flags, inputs or configuration
	ExitConnect = 3 // the target could not be started, initialized or listed
	// ExitInterrupted follows SIGINT (128 + 2, as shells report it);
	// SIGTERM gives 143.
	ExitInterrupted = 130
)

// Options is one audit, ready to run: see [Build].
type Options struct {
	Engine  engine.Config
	Gates   score.Gates
	Format  string   // of stdout (the command line): text, json, markdown, ...
	Outputs []string // files to write, format from the extension
}

// Outcome is what [Run] found.
type Outcome struct {
	// Report is the report, partial when the run was interrupted; nil when
	// the target never got as far as being listed.
	Report *report.Report
	// Gates is the result of the gates; zero when they were not checked
	// (no report, or an interrupted run).
	Gates score.Result
	// Code is the exit code.
	Code int
	// Err says why, when the run did not finish: a configuration error
	// (spell it with [Describe]), a target that could not be reached,
	// or an interruption (the partial report is in Report).
	Err error
}

// Interrupted reports whether the run was stopped from outside.
func (o Outcome) Interrupted() bool {
	return o.Code == ExitInterrupted || o.Code == 128+int(syscall.SIGTERM)
}

// Run audits the target of o and checks the gates. Writing the report
// is the front end's: the outcome says what to write and which exit code to
// end with.
func Run(ctx context.Context, o Options) Outcome {
	rep, err := engine.Run(ctx, o.Engine)
	switch {
	case errors.Is(err, engine.ErrInterrupted) && rep != nil:
		return Outcome{Report: rep, Code: interruptedCode(ctx), Err: err}
	case ctx.Err() != nil:
		if err == nil {
			err = context.Cause(ctx)
		}
		return Outcome{Code: interruptedCode(ctx), Err: err}
	case errors.Is(err, engine.ErrConfig):
		return Outcome{Code: ExitUsage, Err: err}
	case err != nil:
		return Outcome{Code: ExitConnect, Err: err}
	}
	res := score.Check(rep, o.Gates)
	code := ExitOK
	if !res.Passed {
		code = ExitGate
	}
	return Outcome{Report: rep, Gates: res, Code: code}
}
