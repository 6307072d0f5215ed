package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/eracompare"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// EventEra is the [Event] of an --era both run that starts the audit in
// the era named by Reason ("modern", then "legacy"): the tool and case
// events that follow are that audit's.
const EventEra EventKind = "era"

// eraAudit is the outcome of one of the two audits of an --era both run.
type eraAudit struct {
	era   string
	rep   *report.Report // nil when the audit did not get as far as a report
	shown Config
	err   error
}

// runBoth audits the target of cfg (validated and defaulted, Era
// [EraBoth]) in the modern era and then in the legacy one, each exactly as
// --era modern and --era legacy would (same seed, same options), and
// compares the verdicts (docs/BEHAVIOUR.md#targets-and-transports).
//
// The report is the modern audit's, with the legacy one's result, the
// differences and the failures seen only in the legacy era in
// [report.Report.EraComparison], one era_difference finding per
// difference, and one finding of its own code (crash, hang, ...) per
// failure seen only in the legacy era, so that the gates fail on it as on
// one of the modern audit. A server that speaks one era only is audited in
// that one, and the comparison's note says why the other was not: that is
// no failure. Only a server reached in neither era is an error (wrapping
// [ErrConnect]); a configuration error or an interruption of the first
// audit ends the run as it would end a run in one era.
func runBoth(ctx context.Context, cfg Config) (*report.Report, error) {
	started := time.Now()
	modern := auditInEra(ctx, cfg, EraModern)
	if modern.err != nil && !errors.Is(modern.err, ErrConnect) {
		// A configuration error has no report; an interrupted audit's
		// partial one says that the legacy era was never reached.
		return finishBoth(modern, eraAudit{era: EraLegacy, err: ErrInterrupted}, started), modern.err
	}
	legacy := auditInEra(ctx, cfg, EraLegacy)
	if legacy.rep == nil && ctx.Err() != nil {
		// It could not start because the run was stopped: no fault of
		// the server's, whatever the connection error says.
		legacy.err = fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx))
	}
	switch {
	case modern.rep != nil:
		return finishBoth(modern, legacy, started), bothError(ctx, modern, legacy)
	case legacy.rep != nil:
		var he *handshakeError
		if errors.As(modern.err, &he) {
			// The server claims the stateless era but needs initialize:
			// the finding --era auto makes, on the one report there is.
			c := noHandshakeCheck(he.why)
			legacy.rep.Checks = append(legacy.rep.Checks, c)
			legacy.rep.Findings = append(legacy.rep.Findings, repro.CheckFindings(&report.Report{Checks: []report.Check{c}}, reproTarget(legacy.shown))...)
		}
		return finishBoth(legacy, modern, started), legacy.err
	case errors.Is(legacy.err, ErrConnect):
		return nil, fmt.Errorf("%w: in the modern era: %s; in the legacy era: %s", ErrConnect, connectWhy(modern.err), connectWhy(legacy.err))
	}
	return nil, legacy.err
}

// forRepro is audit a as the comparison's findings read it: its era,
// its report and its target.
func (a eraAudit) forRepro() repro.EraAudit {
	return repro.EraAudit{Era: a.era, Rep: a.rep, Target: reproTarget(a.shown)}
}

// auditInEra is one audit of runBoth's: [auditOnce] in era.
func auditInEra(ctx context.Context, cfg Config, era string) eraAudit {
	if cfg.Progress != nil {
		cfg.Progress(Event{Kind: EventEra, Reason: era})
	}
	cfg.Era = era
	rep, shown, err := auditOnce(ctx, cfg)
	return eraAudit{era: era, rep: rep, shown: shown, err: err}
}

// bothError is the error of an --era both run whose modern audit has a
// report: none, unless ctx ended during or before the legacy audit.
func bothError(ctx context.Context, modern, legacy eraAudit) error {
	switch {
	case modern.err != nil:
		return modern.err
	case errors.Is(legacy.err, ErrInterrupted):
		return legacy.err
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx))
	}
	return nil
}

// connectWhy is a connection error without its [ErrConnect] prefix, which
// the message it goes into says once.
func connectWhy(err error) string {
	return strings.TrimPrefix(err.Error(), ErrConnect.Error()+": ")
}

// finishBoth makes the report of an --era both run from the audit that
// has one (primary) and the other: the comparison, its findings (the
// differences, and the failures seen only in the other era), then the
// score again, since a failure seen only in the other era caps the grade
// too (see package score). An interruption of the other audit, or before
// it, makes the whole report a partial one. It returns nil when primary
// has no report.
func finishBoth(primary, other eraAudit, started time.Time) *report.Report {
	rep := primary.rep
	if rep == nil {
		return nil
	}
	rep.Config.Era = EraBoth
	rep.DurationMs = time.Since(started).Milliseconds()
	cmp := &report.EraComparison{Era: other.era}
	interrupted := errors.Is(other.err, ErrInterrupted) || other.rep != nil && other.rep.Interrupted
	switch {
	case other.rep == nil && interrupted:
		cmp.Note = fmt.Sprintf("not audited in the %s era: the run was interrupted first", other.era)
	case other.rep == nil:
		cmp.Note = fmt.Sprintf("not audited in the %s era, so no verdicts were compared: %s", other.era, connectWhy(other.err))
	default:
		fillComparison(cmp, primary, other)
	}
	if interrupted && !rep.Interrupted {
		// The run as a whole was stopped: its report is a partial one.
		rep.Interrupted = true
		rep.EndedEarly = oracle.JoinDetail(rep.EndedEarly, fmt.Sprintf("the %s era's audit was interrupted", other.era))
	}
	rep.EraComparison = cmp
	rep.Findings = append(rep.Findings, repro.EraFindings(primary.forRepro(), other.forRepro(), cmp.Differences)...)
	rep.Findings = append(rep.Findings, repro.OtherEraFindings(other.forRepro(), cmp.Failures)...)
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		return rep.Findings[i].Severity.Rank() < rep.Findings[j].Severity.Rank()
	})
	rep.Normalize()
	score.Apply(rep)
	return rep
}

// fillComparison records the other audit's result in cmp, the cases
// whose verdicts differ, the tools listed in one era only, and the
// failures of the other era the primary audit does not have.
func fillComparison(cmp *report.EraComparison, primary, other eraAudit) {
	o := other.rep
	cmp.ProtocolVersion = o.Server.ProtocolVersion
	cmp.Graded, cmp.Score, cmp.Grade, cmp.Summary = o.Graded, o.Score, o.Grade, o.Summary
	modern, legacy := primary.rep, o
	if primary.era == EraLegacy {
		modern, legacy = o, primary.rep
	}
	cmp.Compared, cmp.Differences = eracompare.Compare(modern, legacy)
	cmp.ToolsOnlyInOtherEra, cmp.ToolsMissingInOtherEra = eracompare.ToolsOnlyIn(o, primary.rep), eracompare.ToolsOnlyIn(primary.rep, o)
	cmp.Failures = eracompare.Failures(primary.rep, o)
	if o.Interrupted {
		cmp.Note = fmt.Sprintf("the %s era's audit was interrupted: only the cases it ran were compared", other.era)
	}
}
