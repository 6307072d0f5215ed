// Package audit is the one layer between a front end (the command line, the
// GitHub Action) and the engine: typed [Settings] as the front end read them
// become [Options] (config file applied, everything validated, errors spelled
// as that front end's users wrote them), and [Run] takes Options through the
// engine and the gates to a report, a gate result and an exit code.
package audit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"

	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Exit codes (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes), the same for the command line and the Action.
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
	Verbose bool     // text: every case and reproducer, not the summary
	// SARIF is what locates SARIF output: see package sarifloc.
	SARIF SARIF

	// spell names options in errors the engine finds during the run, as
	// Build spelled its own.
	spell Names
	// defaultReplacedBy names the score floor that replaced the default
	// gate when no finding gate is set ("--fail-under"); "" otherwise.
	defaultReplacedBy string
}

// SARIF is what the options say about SARIF output; the front end, which
// knows the repository root, finds the location from it (package sarifloc).
type SARIF struct {
	Location string // the file named by sarif-location, or ""
	Category string // sarif-category, or ""
	Config   string // the config file read, or ""
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
	// Warnings are problems that did not stop the run, for the front end
	// to show: an expected id of the config file that matches nothing.
	Warnings []string
}

// Describe spells err, found by the engine during a run with o (a tool
// pattern that matches no tool), as [Build] spelled o's own errors: a
// setting of the config file as the file's key.
func (o Options) Describe(err error) string {
	if o.spell == nil {
		return err.Error()
	}
	return Describe(err, o.spell)
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
		// A tool pattern or per-tool name that matches no listed tool
		// (engine.ErrNoMatch), found after discovery.
		if o.spell != nil {
			err = &spelledError{msg: Describe(err, o.spell), err: err}
		}
		return Outcome{Code: ExitUsage, Err: err}
	case err != nil:
		return Outcome{Code: ExitConnect, Err: err}
	}
	res := score.Check(rep, o.Gates)
	code := ExitOK
	if !res.Passed {
		code = ExitGate
	}
	warnings := unmatchedExpected(rep, o.Gates.Expected)
	if w := ungatedCritical(rep, o); w != "" {
		warnings = append(warnings, w)
	}
	if n := len(o.Engine.Lifecycle); n > 0 && !o.Engine.Sequential {
		seq := "sequential"
		if o.spell != nil {
			seq = o.spell(seq)
		}
		warnings = append(warnings, fmt.Sprintf("config lifecycle pairs the tools of %d %s, but the lifecycle checks did not run: they run with %s", n, map[bool]string{true: "resource", false: "resources"}[n == 1], seq))
	}
	return Outcome{Report: rep, Gates: res, Code: code, Warnings: warnings}
}

// ungatedCritical says so when the run has critical findings (crash, hang,
// protocol violation, leak) that failed nothing because a score floor, or
// --fail-on kinds that leave some of them out, replaced the default gate:
// a floor alone, or --fail-on envelope, lets a crashing server pass.
func ungatedCritical(rep *report.Report, o Options) string {
	if o.defaultReplacedBy == "" {
		return ""
	}
	// Count by code, so that the warning says which of them went ungated
	// ("10 leak"), not only that some critical kind did.
	n := 0
	byCode := map[string]int{}
	var codes []string
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityCritical && !o.Gates.Accepted(f) && !slices.Contains(o.Gates.FailOn, f.Code) {
			n++
			if byCode[f.Code] == 0 {
				codes = append(codes, f.Code)
			}
			byCode[f.Code]++
		}
	}
	if n == 0 {
		return ""
	}
	slices.Sort(codes)
	counts := make([]string, len(codes))
	for i, c := range codes {
		counts[i] = fmt.Sprintf("%d %s", byCode[c], c)
	}
	noun := "findings"
	if n == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("%d critical %s (%s) failed no gate: %s replaces the default gate; add fail-on %s (or %s) to keep it",
		n, noun, strings.Join(counts, ", "), o.defaultReplacedBy, score.DefaultFailOnNames(), score.FailOnDefault)
}

// unmatchedExpected warns about each expected id (in id order) that is
// neither a case id nor a finding id of rep, naming the nearest ones.
//
// A warning, not an error: which cases a run has depends on its --cases
// budget, seed, --tools and the tools' annotations, so one config file
// serves runs that meet different subsets of its ids. An entry for a
// failure this run does not have suppresses nothing (harmless), and a
// mistyped entry leaves its finding failing the gate (loud already); the
// warning says which.
func unmatchedExpected(rep *report.Report, expected map[string]string) []string {
	if len(expected) == 0 {
		return nil
	}
	known := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id != "" && !known[id] {
			known[id] = true
			ids = append(ids, id)
		}
	}
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			add(c.ID)
		}
	}
	for _, f := range rep.Findings {
		add(f.ID)
	}
	var out []string
	unmatched := 0
	for _, id := range slices.Sorted(maps.Keys(expected)) {
		if known[id] {
			continue
		}
		if unmatched++; unmatched <= maxExpectedWarnings {
			out = append(out, fmt.Sprintf("config expected id %q matches no case or finding of this run, so it suppresses nothing%s", id, suggest.Hint(id, ids)))
		}
	}
	if n := unmatched - maxExpectedWarnings; n > 0 {
		out = append(out, fmt.Sprintf("%d more config expected ids match no case or finding of this run", n))
	}
	return out
}

// maxExpectedWarnings is how many unmatched expected ids are named one by
// one (each is a ::warning in the Action).
const maxExpectedWarnings = 5
