// Package eracompare compares the reports of one server audited in each
// era (--era both, docs/BEHAVIOUR.md#targets-and-transports): the cases
// whose verdicts differ, the tools one era lists only, and the failures
// seen in one era only. It reads reports; it runs nothing.
package eracompare

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Compare compares the cases the two reports have in common: same
// tool, same case id and same arguments (generation is deterministic for a
// seed, but a valid call learned from the server in one era may have
// other arguments in the other, and so the bad inputs derived from it).
// Cases not run in either era are left out. It returns how many cases were
// compared and those whose verdict or leak flag differs, in the modern
// report's order.
func Compare(modern, legacy *report.Report) (compared int, diffs []report.EraDifference) {
	other := map[string]map[string]report.Case{}
	for _, t := range legacy.Tools {
		byID := map[string]report.Case{}
		for _, c := range t.Cases {
			byID[c.ID] = c
		}
		other[t.Name] = byID
	}
	for _, t := range modern.Tools {
		for _, m := range t.Cases {
			l, ok := other[t.Name][m.ID]
			if !ok || m.Verdict == report.NotRun || l.Verdict == report.NotRun || !sameArguments(m, l) {
				continue
			}
			compared++
			mo, lo := eraOutcome(m), eraOutcome(l)
			if mo.Verdict != lo.Verdict || mo.Leak != lo.Leak {
				diffs = append(diffs, report.EraDifference{Tool: t.Name, CaseID: m.ID, Kind: m.Kind, Modern: mo, Legacy: lo})
			}
		}
	}
	return compared, diffs
}

// ToolsOnlyIn names the tools a lists and b does not, in a's order.
func ToolsOnlyIn(a, b *report.Report) []string {
	listed := map[string]bool{}
	for _, t := range b.Tools {
		listed[t.Name] = true
	}
	var out []string
	for _, t := range a.Tools {
		if !listed[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out
}

// failureCodes are the finding codes of the failures of case c: its
// verdict's when a crash, hang or protocol violation, and leak.
func failureCodes(c report.Case) []string {
	var codes []string
	if c.Verdict.Failure() {
		codes = append(codes, string(c.Verdict))
	}
	if c.HasFlag(report.FlagLeak) {
		codes = append(codes, report.FlagLeak)
	}
	return codes
}

// Failures lists the failing cases of other, the other era's
// report, with the failures primary does not have on the same tool's
// case of the same id: every case of a tool only other lists, and the
// cases of shared tools that failed otherwise or not at all in primary's
// era (whatever their arguments: a failure of the same kind on the same
// case is one finding, primary's). In other's order.
func Failures(primary, other *report.Report) []report.EraFailure {
	seen := map[string]map[string][]string{}
	for _, t := range primary.Tools {
		byID := map[string][]string{}
		for _, c := range t.Cases {
			byID[c.ID] = failureCodes(c)
		}
		seen[t.Name] = byID
	}
	var out []report.EraFailure
	for _, t := range other.Tools {
		for _, c := range t.Cases {
			var codes []string
			for _, code := range failureCodes(c) {
				if !slices.Contains(seen[t.Name][c.ID], code) {
					codes = append(codes, code)
				}
			}
			if len(codes) > 0 {
				out = append(out, report.EraFailure{Tool: t.Name, Codes: codes, Case: c})
			}
		}
	}
	return out
}

// sameArguments reports whether a and b sent the same arguments: the same
// bytes, or, compacted, the same digest.
func sameArguments(a, b report.Case) bool {
	if (a.ArgumentsDigest == nil) != (b.ArgumentsDigest == nil) {
		return false
	}
	if a.ArgumentsDigest != nil {
		return a.ArgumentsDigest.SHA256 == b.ArgumentsDigest.SHA256 && a.ArgumentsDigest.Bytes == b.ArgumentsDigest.Bytes
	}
	return bytes.Equal(a.Arguments, b.Arguments)
}

// eraOutcome is what the comparison reads of case c.
func eraOutcome(c report.Case) report.EraOutcome {
	o := report.EraOutcome{Verdict: c.Verdict, ErrorCode: c.ErrorCode, Leak: c.HasFlag(report.FlagLeak), Detail: c.Detail}
	if c.Crash != nil && c.Verdict == report.Crash {
		o.Crash = c.Crash.How
	}
	return o
}

// OutcomeText says "rejected (-32602)", "crash (exit)" or "handled, leak".
func OutcomeText(o report.EraOutcome) string {
	s := string(o.Verdict)
	switch {
	case o.ErrorCode != nil:
		s += fmt.Sprintf(" (%d)", *o.ErrorCode)
	case o.Crash != "":
		s += " (" + strings.ReplaceAll(o.Crash, "_", " ") + ")"
	}
	if o.Leak {
		s += ", leak"
	}
	return s
}
