package score

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// dimensions computes the six dimensions from t and the report's lint.
func dimensions(rep *report.Report, t tally) map[string]report.Dimension {
	return map[string]report.Dimension{
		Robustness:   t.robustness(),
		Validation:   t.validation(),
		ErrorQuality: t.errorQuality(),
		Liveness:     t.liveness(),
		Performance:  t.performance(),
		Schema:       schema(rep),
	}
}

func notMeasured(why string) report.Dimension {
	return report.Dimension{Reason: "not measured: " + why}
}

func measured(score int, reason string) report.Dimension {
	return report.Dimension{Score: &score, Reason: reason}
}

// whole rounds a 0–100 value to a whole percent, but never rounds a value with
// a deduction up to 100 nor one with any credit down to 0, so a single failure
// among thousands still shows.
func whole(v float64) int {
	p := int(math.Round(v))
	switch {
	case v < 100 && p >= 100:
		return 99
	case v > 0 && p <= 0:
		return 1
	}
	return min(max(p, 0), 100)
}

func percent(num, den int) int { return whole(100 * float64(num) / float64(den)) }

func (t tally) robustness() report.Dimension {
	if t.badRun == 0 {
		return notMeasured("no bad-input case was run")
	}
	p := percent(t.badSurvived, t.badRun)
	return measured(p, fmt.Sprintf("%d of %d bad inputs answered without crash, hang or protocol violation (%d%%)", t.badSurvived, t.badRun, p))
}

func (t tally) validation() report.Dimension {
	uncredited := ""
	if t.unconfCaught > 0 {
		uncredited = fmt.Sprintf("; %s on unconfirmed tools not credited", plural(t.unconfCaught, "rejection", "rejections"))
	}
	switch {
	case t.tested == 0:
		return notMeasured("no tool was tested")
	case t.confirmed == 0:
		return notMeasured("no tested tool is confirmed (no valid call succeeded)" + uncredited)
	case t.forbRun == 0:
		return notMeasured(fmt.Sprintf("no forbidden input was run on the %s", plural(t.confirmed, "confirmed tool", "confirmed tools")) + uncredited)
	}
	p := percent(t.forbCaught, t.forbRun)
	return measured(p, fmt.Sprintf("%d of %d forbidden inputs on %s handled or rejected (%d%%)%s",
		t.forbCaught, t.forbRun, plural(t.confirmed, "confirmed tool", "confirmed tools"), p, uncredited))
}

func (t tally) errorQuality() report.Dimension {
	n := t.eqHandled + t.eqRejected
	if n == 0 {
		return notMeasured("no bad input on a confirmed tool was handled or rejected")
	}
	// Work in halves so the arithmetic is exact.
	halves := max(2*t.eqHandled+t.eqRejected-2*t.eqLeaks, 0)
	p := percent(halves, 2*n)
	return measured(p, fmt.Sprintf("(%d handled × 1 + %d rejected × 0.5 − %s) ÷ %d rejections on confirmed tools = %s ÷ %d (%d%%)",
		t.eqHandled, t.eqRejected, plural(t.eqLeaks, "leak", "leaks"), n, half(halves), n, p))
}

func (t tally) liveness() report.Dimension {
	gaps := ""
	if t.validGaps > 0 {
		gaps = fmt.Sprintf("%s excluded", plural(t.validGaps, "generator gap", "generator gaps"))
	}
	if t.validRun == 0 {
		if gaps != "" {
			return notMeasured("no valid call was run; " + gaps)
		}
		return notMeasured("no valid call was run")
	}
	p := percent(t.validOK, t.validRun)
	order := []report.Verdict{report.Errored, report.EmptySuccess, report.OutputViolation, report.Crash, report.Hang, report.ProtocolViolation}
	for _, v := range slices.Sorted(maps.Keys(t.validNotOK)) { // verdicts outside docs/BEHAVIOUR.md#the-oracle, if any, last
		if !slices.Contains(order, v) {
			order = append(order, v)
		}
	}
	var notes []string
	for _, v := range order {
		if n := t.validNotOK[v]; n > 0 {
			note := fmt.Sprintf("%d %s", n, v)
			if v == report.Errored {
				note += " (possibly synthetic input)"
			}
			notes = append(notes, note)
		}
	}
	if gaps != "" {
		notes = append(notes, gaps)
	}
	reason := fmt.Sprintf("%d of %d valid calls ok (%d%%)", t.validOK, t.validRun, p)
	if len(notes) > 0 {
		reason += "; " + strings.Join(notes, ", ")
	}
	return measured(p, reason)
}

func (t tally) performance() report.Dimension {
	if t.perfMeasured == 0 {
		return notMeasured("no valid call was answered")
	}
	clean := t.perfClean()
	p := percent(clean, t.perfMeasured)
	reason := fmt.Sprintf("%d of %d tools neither slow nor bloated (%d%%)", clean, t.perfMeasured, p)
	if len(t.slowTools) > 0 {
		reason += "; slow: " + names(t.slowTools)
	}
	if len(t.bigTools) > 0 {
		reason += "; bloated: " + names(t.bigTools)
	}
	return measured(p, reason)
}

// lintCount counts lint by severity; anything but error and warning counts
// as info.
type lintCount struct{ errors, warnings, infos int }

func (c *lintCount) add(severity report.Severity) {
	switch severity {
	case report.SeverityError:
		c.errors++
	case report.SeverityWarning:
		c.warnings++
	default:
		c.infos++
	}
}

func (c lintCount) penalty() int { return 10*c.errors + 4*c.warnings + c.infos }

func (c lintCount) String() string {
	return fmt.Sprintf("%s, %s, %d info", plural(c.errors, "error", "errors"), plural(c.warnings, "warning", "warnings"), c.infos)
}

func schema(rep *report.Report) report.Dimension {
	if len(rep.Tools) == 0 {
		return notMeasured("no tool was listed")
	}
	perTool := map[string]*lintCount{}
	for _, tool := range rep.Tools {
		perTool[tool.Name] = &lintCount{}
	}
	var all, server lintCount
	for _, l := range rep.Lint {
		if l.Code == report.LintLegacyOnly {
			// Which revision a server speaks is no flaw of its tools'
			// metadata: said, not scored.
			continue
		}
		if c, ok := perTool[l.Tool]; ok && l.Tool != "" {
			c.add(l.Severity)
			all.add(l.Severity)
		} else {
			server.add(l.Severity)
		}
	}
	sum := 0
	for _, tool := range rep.Tools {
		sum += max(100-perTool[tool.Name].penalty(), 0)
	}
	mean := float64(sum) / float64(len(rep.Tools))
	raw := max(mean-float64(server.penalty()), 0)
	p := whole(raw)
	reason := fmt.Sprintf("%s with %s: mean of max(0, 100 − penalty) per tool = %s",
		plural(len(rep.Tools), "tool", "tools"), all, num(mean))
	if server.penalty() > 0 {
		reason += fmt.Sprintf("; server-level %s: −%d", server, server.penalty())
	}
	reason += fmt.Sprintf(" → %d", p)
	return measured(p, reason)
}

func half(halves int) string { return num(float64(halves) / 2) }

// num formats v with at most two decimals.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// names joins tool names, eliding past the fifth.
func names(list []string) string {
	const most = 5
	if len(list) <= most {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:most], ", ") + fmt.Sprintf(" and %d more", len(list)-most)
}
