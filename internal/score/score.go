package score

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Apply computes the dimensions, overall score, grade, caps and critical
// callout of rep and stores them in it (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes), and decides
// [report.Report.Graded]: a report that was interrupted, or in which no case
// of a tested tool ran, gets no score and no grade and a single [NotGraded]
// cap saying why; its dimensions and callout are still filled in.
func Apply(rep *report.Report) {
	t := count(rep)
	rep.Dimensions = dimensions(rep, t)
	rep.Critical = t.critical()
	rep.Score, rep.Grade, rep.Graded = nil, nil, false

	if rep.Static && !rep.Interrupted {
		applyStatic(rep, t)
		return
	}
	if rep.Interrupted || t.tested == 0 || t.casesRun == 0 {
		rep.Caps = []report.Cap{{Grade: NotGraded, Reason: notGradedReason(rep, t)}}
		return
	}
	applyGrade(rep, t, "nothing tested: no dimension could be measured")
}

// applyGrade stores in rep the overall score of its measured dimensions, the
// letter and the caps of t, the worst of which bounds the letter. When no
// dimension was measured rep is not graded, and its one [NotGraded] cap
// gives unmeasured as the reason.
func applyGrade(rep *report.Report, t tally, unmeasured string) {
	overall, ok := Overall(rep.Dimensions)
	if !ok {
		rep.Caps = []report.Cap{{Grade: NotGraded, Reason: unmeasured}}
		return
	}
	letter := Letter(overall)
	caps := t.caps(rep.Dimensions)
	for _, c := range caps {
		if rank(c.Grade) < rank(letter) {
			letter = c.Grade
		}
	}
	rep.Score, rep.Grade, rep.Caps, rep.Graded = &overall, &letter, caps, true
}

// NotMeasuredStatic is the reason, after "not measured: ", of every
// dimension but Schema in a static report.
const NotMeasuredStatic = "--no-calls, no call was made"

// applyStatic grades a static report ([report.Report.Static]) on the
// Schema dimension alone. Its tools were listed and linted and none was
// called, on purpose: that is not the "nothing tested" of docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes, which
// is about a run meant to call tools that called none. The other
// dimensions are not measured, the overall is Schema's score, and of the
// caps only those that need no call can apply (a protocol violation
// outside any call, seen during discovery). A server that lists no tool
// has no Schema score, and is not graded.
func applyStatic(rep *report.Report, t tally) {
	for _, f := range formulas {
		if f.Dimension != Schema {
			rep.Dimensions[f.Dimension] = notMeasured(NotMeasuredStatic)
		}
	}
	applyGrade(rep, t, "nothing to grade: the server listed no tools, and a static audit (--no-calls) grades their schemas only")
}

// Overall is the rounded weighted mean of the measured dimensions; ok is false
// when none was measured.
func Overall(dims map[string]report.Dimension) (score int, ok bool) {
	sum, weights := 0, 0
	for _, f := range formulas {
		d, found := dims[f.Dimension]
		if !found || d.Score == nil {
			continue
		}
		sum += f.Weight * *d.Score
		weights += f.Weight
	}
	if weights == 0 {
		return 0, false
	}
	return int(math.Round(float64(sum) / float64(weights))), true
}

// Letter is the grade of an overall score before caps.
func Letter(score int) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 75:
		return "B"
	case score >= 60:
		return "C"
	case score >= 40:
		return "D"
	}
	return "F"
}

// rank orders grades, higher is better.
func rank(grade string) int {
	return strings.Index("FDCBA", grade)
}

func notGradedReason(rep *report.Report, t tally) string {
	var why string
	switch {
	case rep.Interrupted:
		// A grade of the cases that happened to run before the signal
		// would read like a verdict on the server.
		return fmt.Sprintf("the run was interrupted after %s: a partial run is not graded (%s)", plural(t.casesRun, "case", "cases"), rep.EndedEarly)
	case t.listed == 0:
		why = "nothing tested: the server listed no tools"
	case t.tested == 0:
		why = fmt.Sprintf("nothing tested: none of the %s was tested", plural(t.listed, "listed tool", "listed tools"))
	default:
		why = fmt.Sprintf("nothing tested: no case of the %s ran", plural(t.tested, "tested tool", "tested tools"))
	}
	if rep.EndedEarly != "" {
		why += " (" + rep.EndedEarly + ")"
	}
	return why
}

// caps lists every cap that applies, in the order of the README's table of
// caps ("Score and grade"; docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes).
func (t tally) caps(dims map[string]report.Dimension) []report.Cap {
	caps := []report.Cap{}
	add := func(grade, format string, args ...any) {
		caps = append(caps, report.Cap{Grade: grade, Reason: fmt.Sprintf(format, args...)})
	}
	if t.exploits > 0 {
		add("F", "%s proved by %s (%s)", plural(t.exploits, "security flaw", "security flaws"),
			map[bool]string{true: "its evidence", false: "their evidence"}[t.exploits == 1], t.exploitNames())
	}
	if s := dims[Robustness].Score; s != nil && *s < 50 {
		add("F", "robustness %d is under 50", *s)
	}
	if f := t.brokenSession(); f != "" {
		add("D", "%s%s: each can end or stall a client's session", f, t.inOtherEra(capSession))
	}
	if n := t.crashHow[report.CrashInternalError]; n > 0 {
		add("C", "%s (-32603 or the server-error range) from a live server%s", plural(n, "internal error", "internal errors"), t.inOtherEra(capInternal))
	}
	if s := dims[Validation].Score; s != nil && *s < 50 {
		add("D", "validation %d is under 50", *s)
	}
	if s := dims[Validation].Score; s != nil && *s < 80 {
		add("C", "validation %d is under 80", *s)
	}
	if n := t.failures[report.FlagLeak]; n > 0 {
		add("C", "%s a secret or a stack trace%s", plural(n, "answer leaks", "answers leak"), t.inOtherEra(capLeak))
	}
	if t.tested > 0 && t.confirmed == 0 {
		add("C", "no tested tool is confirmed: the valid call of none of the %s succeeded", plural(t.tested, "tested tool", "tested tools"))
	}
	return caps
}

// brokenSession says "7 process exits, 1 dropped connection, 10 hangs, 11
// protocol violations": the failures that cost a client its session (the
// grade cap D of docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes), or "". A crash that does not say how it happened
// (a report from an older version) counts as a process exit.
func (t tally) brokenSession() string {
	var parts []string
	if n := t.failures[string(report.Crash)] - t.crashHow[report.CrashInternalError] - t.crashHow[report.CrashClosed]; n > 0 {
		parts = append(parts, plural(n, "process exit", "process exits"))
	}
	if n := t.crashHow[report.CrashClosed]; n > 0 {
		parts = append(parts, plural(n, "dropped connection", "dropped connections"))
	}
	for _, k := range []report.Verdict{report.Hang, report.ProtocolViolation} {
		if n := t.failures[string(k)]; n > 0 {
			parts = append(parts, failureNoun(string(k), n))
		}
	}
	return strings.Join(parts, ", ")
}

// exploitNames says which security flaws were proved: "path_traversal,
// ssrf".
func (t tally) exploitNames() string {
	var names []string
	for _, c := range report.Codes() {
		if c.Exploit && t.failures[c.Name] > 0 {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

func failureNoun(kind string, n int) string {
	if code, ok := report.LookupCode(kind); ok && code.Exploit {
		one := code.Title
		if len(one) > 1 && !unicode.IsUpper(rune(one[1])) {
			one = strings.ToLower(one[:1]) + one[1:] // "SQL injection" stays
		}
		many := one + "s"
		if stem, ok := strings.CutSuffix(one, "y"); ok {
			many = stem + "ies" // forgery, forgeries
		}
		return plural(n, one, many)
	}
	switch kind {
	case string(report.Crash):
		return plural(n, "crash", "crashes")
	case string(report.Hang):
		return plural(n, "hang", "hangs")
	case string(report.ProtocolViolation):
		return plural(n, "protocol violation", "protocol violations")
	case report.FlagLeak:
		return plural(n, "leak", "leaks") + " of a secret or stack trace"
	}
	return fmt.Sprintf("%d %s", n, kind)
}

// critical is one line per kind of crash, hang, protocol violation or leak
// that occurred, naming the tools.
func (t tally) critical() []string {
	var lines []string
	kinds := []string{}
	for _, c := range report.Codes() {
		if c.Exploit {
			kinds = append(kinds, c.Name)
		}
	}
	for _, k := range append(kinds, string(report.Crash), string(report.Hang), string(report.ProtocolViolation), report.FlagLeak) {
		if n := t.failures[k]; n > 0 {
			lines = append(lines, fmt.Sprintf("%s (%s)", failureNoun(k, n), names(t.failureTools[k])))
		}
	}
	return lines
}

// Untested says "6 of 9 tools untested" when some of the server's tools were
// not called (not read-only, deselected, skipped by the config), else "". It
// stands next to the grade in every format: a grade earned on 3 of 9 tools
// says less than it seems to. For a static report it is
// [report.StaticLabel] instead: no tool was meant to be called, and the
// grade is Schema's alone.
func Untested(rep *report.Report) string {
	if rep.Static {
		return report.StaticLabel
	}
	untested, listed := UntestedCount(rep)
	if untested == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %s untested", untested, plural(listed, "tool", "tools"))
}

// UntestedCount is how many of the report's listed tools were not tested.
func UntestedCount(rep *report.Report) (untested, listed int) {
	for _, t := range rep.Tools {
		if !t.Tested {
			untested++
		}
	}
	return untested, len(rep.Tools)
}
