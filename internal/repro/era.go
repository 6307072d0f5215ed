package repro

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/eracompare"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// EraAudit is one of the two audits of an --era both run, as its findings
// need it: the era it spoke, its report and its target.
type EraAudit struct {
	Era    string
	Rep    *report.Report
	Target Target
}

// target is a's target, its replay reproducers asking for a's era.
func (a EraAudit) target() Target {
	t := a.Target
	t.ReplayEra = a.Era
	return t
}

// EraFindings makes one era_difference finding per difference, with the
// case's reproducer in each era.
func EraFindings(primary, other EraAudit, diffs []report.EraDifference) []report.Finding {
	code, _ := report.LookupCode(report.CodeEraDifference)
	out := make([]report.Finding, 0, len(diffs))
	for _, d := range diffs {
		msg := fmt.Sprintf("%s: modern: %s; legacy: %s", code.Message, eracompare.OutcomeText(d.Modern), eracompare.OutcomeText(d.Legacy))
		out = append(out, report.Finding{
			ID:         d.CaseID + "#" + code.Name,
			Severity:   code.Severity,
			Code:       code.Name,
			Tool:       d.Tool,
			CaseID:     d.CaseID,
			Message:    textcut.UTF8(msg, maxFindingMessage),
			Reproducer: eraReproducer(primary, other, d),
		})
	}
	return out
}

// OtherEraFindings makes one finding per failure seen only in the other
// era, of the failure's own code and severity, its id naming the era
// ([report.EraFailureID]), its message saying so, and its reproducer
// speaking that era: the gates and a reader see a crash of the legacy era
// as one, not only as a difference between the eras.
func OtherEraFindings(other EraAudit, failures []report.EraFailure) []report.Finding {
	t := other.target()
	var out []report.Finding
	for _, f := range failures {
		for _, name := range f.Codes {
			code, ok := report.LookupCode(name)
			if !ok {
				continue
			}
			code.Message = fmt.Sprintf("in the %s era only: %s", other.Era, code.Message)
			fd := newFinding(other.Rep, t, f.Tool, f.Case, code)
			fd.ID = report.EraFailureID(f.Case.ID, code.Name, other.Era)
			out = append(out, fd)
		}
	}
	return out
}

// eraReproducer reproduces difference d in both eras: the JSON-RPC line
// (or generator) of the primary era, and a shell command that runs the
// case's reproducer of each era in turn, modern first, each in a subshell
// (one may cd), under a line naming the era. A compacted case is replayed
// with --era.
func eraReproducer(primary, other EraAudit, d report.EraDifference) report.Reproducer {
	p, okP := eraCaseReproducer(primary, d)
	o, okO := eraCaseReproducer(other, d)
	if !okP || !okO {
		return p
	}
	r := report.Reproducer{JSONRPC: p.JSONRPC, Generator: p.Generator}
	first, second, fr, sr := primary, other, p, o
	if primary.Era == report.EraLegacy {
		first, second, fr, sr = other, primary, o, p
	}
	switch {
	case fr.Shell == "":
		r.Shell = sr.Shell
	case sr.Shell == "":
		r.Shell = fr.Shell
	default:
		r.Shell = fmt.Sprintf("echo %s; ( %s ); echo %s; ( %s )",
			ShellQuote(eraLabel(first)), fr.Shell, ShellQuote(eraLabel(second)), sr.Shell)
	}
	return r
}

// eraCaseReproducer is the reproducer of difference d's case as audit a's
// report has it, speaking a's era.
func eraCaseReproducer(a EraAudit, d report.EraDifference) (report.Reproducer, bool) {
	for _, tl := range a.Rep.Tools {
		if tl.Name != d.Tool {
			continue
		}
		for _, c := range tl.Cases {
			if c.ID == d.CaseID {
				return Case(a.Rep, a.target(), tl.Name, c), true
			}
		}
	}
	return report.Reproducer{}, false
}

// eraLabel heads an era's part of a reproducer: "# legacy era
// (2025-11-25)"; the version is the server's word, kept only in the shape
// of a version token.
func eraLabel(a EraAudit) string {
	if v := mcpheader.Token(a.Rep.Server.ProtocolVersion); v != "" {
		return fmt.Sprintf("# %s era (%s)", a.Era, v)
	}
	return "# " + a.Era + " era"
}
