package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/text"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Lengths, in runes, that server text is shown at in the reports; a
// layout that shows more or less cuts it again ([text.Untrusted.Cut]).
const (
	nameMax       = 100
	textMax       = 300
	reproducerMax = 2000
	stderrMax     = 2000
)

// summary is what the terminal and Markdown reports say of a report, in
// sections: the server and the run, the grade, the dimensions and caps,
// the findings and fixes, the checks, the tools and their cases, the
// metadata lint. [newSummary] builds it; [Terminal], [TerminalSummary]
// and [Markdown] each walk it. Every piece of text that came from the
// server, or from the report file, is a [text.Untrusted]; a plain string
// or number is the program's own.
type summary struct {
	Server     serverPart
	Run        runPart
	Grade      gradePart
	Dimensions []dimensionRow
	Caps       []capRow
	Findings   findingsPart
	Fixes      []fixRow
	Checks     checksPart
	Learned    []learnedRow
	NotCalled  notCalledPart
	Lint       lintPart
	Tools      []toolPart
	// Outputs are the files the run wrote (TerminalOptions.Outputs).
	Outputs []text.Untrusted
}

// serverPart is the server and the protocol it spoke.
type serverPart struct {
	Name, Version   text.Untrusted
	ProtocolVersion text.Untrusted
	// Era is the protocol era spoken, empty for a report of none; Modern
	// is set when it is the modern one.
	Era       text.Untrusted
	Modern    bool
	EraReason text.Untrusted // why that era
	Transport text.Untrusted
	Target    text.Untrusted // the URL, else the command
	Listed    int            // tools listed
	Notes     []text.Untrusted
}

// runPart is how the run went.
type runPart struct {
	Version text.Untrusted // of the mcp-fuzz that wrote the report
	Seed    int64
	Seconds string // the duration: "15.234"
	// Tested, Skipped and Cases count tools and cases; Verdicts lists the
	// non-zero verdict and flag counts ([verdictLine]).
	Tested, Skipped, Cases int
	Verdicts               string
	// Containment is the box in a few words; ContainmentLines is each of
	// its mechanisms (none for a report without a box).
	Containment      text.Untrusted
	ContainmentLines []text.Untrusted
	Warning          text.Untrusted
	// Security says whether the security cases ran and what they proved
	// ("" for a static report).
	Security   string
	Eras       *erasPart // nil: a report of one era
	EraNotes   []text.Untrusted
	EndedEarly text.Untrusted
}

// gradePart is the grade, the score and why.
type gradePart struct {
	// Graded is false for a report not graded; then Score and Letter say
	// nothing.
	Graded bool
	Score  int
	// Letter is the grade, when HasLetter (a graded report may have a
	// score alone).
	Letter     text.Untrusted
	HasLetter  bool
	CappedFrom string // the letter the score alone would earn, when a cap lowered it
	Untested   string // "6 of 9 tools untested", or ""
	// Text is the grade in a few words ([gradeText]), BadgeURL its badge.
	Text     text.Untrusted
	BadgeURL string
	Why      text.Untrusted // the cap that set the grade, or the weakest dimension
	Critical []text.Untrusted
}

// dimensionRow is one dimension of the score.
type dimensionRow struct {
	Title  text.Untrusted
	Score  *int // nil: not measured
	Weight int  // 0: not weighed
	Reason text.Untrusted
}

// capRow is one cap on the grade.
type capRow struct {
	Grade     text.Untrusted
	NotGraded bool // the cap is "not graded", not a letter
	Reason    text.Untrusted
}

// findingsPart is the findings, grouped two ways.
type findingsPart struct {
	Count int
	// ByTool groups them by tool, the worst group first ([groupByTool]).
	ByTool []toolFindings
	// ByCode groups them by tool and code, the worst first
	// ([groupFindings]), for a line each.
	ByCode []codeFindings
}

// toolFindings is the findings of one tool, or of the server (Tool empty).
type toolFindings struct {
	Tool     text.Untrusted
	Findings []findingRow
}

// findingRow is one finding with its reproducers.
type findingRow struct {
	Tone     tone // of its severity
	Severity text.Untrusted
	Code     text.Untrusted
	CaseID   text.Untrusted
	Message  text.Untrusted
	// JSONRPC, Shell and Generator are the reproducers; Placeholder
	// explains a report placeholder in Shell ([placeholderNote]).
	JSONRPC, Shell, Generator text.Untrusted
	Placeholder               text.Untrusted
	Stderr                    text.Untrusted // the stderr tail of a crash
}

// codeFindings is the findings of one code on one tool.
type codeFindings struct {
	Tool     text.Untrusted // empty: the server's
	Code     text.Untrusted
	Tone     tone
	Severity text.Untrusted
	Count    int
	// Message is the worst finding's message without the opening words
	// its code says already ([groupMessage]).
	Message text.Untrusted
}

// fixRow is what to do about the findings of one code.
type fixRow struct {
	Title, Code, Severity text.Untrusted
	Count                 string // "12 findings in 2 tools"
	Fix                   text.Untrusted
}

// checksPart is the protocol, concurrency and lifecycle checks.
type checksPart struct {
	// Line says how the protocol and concurrency checks went, or why
	// none ran ([checkLine]); empty for an older report.
	Line text.Untrusted
	// Short is a line per kind of check that ran, lifecycle included,
	// the era named.
	Short    []text.Untrusted
	Protocol []checkRow
	// Lifecycle is nil when the lifecycle checks did not run.
	Lifecycle *lifecyclePart
}

// lifecyclePart is the lifecycle checks (--sequential).
type lifecyclePart struct {
	Line    text.Untrusted // the groups detected and how the checks went ([lifecycleLine])
	Summary text.Untrusted // "--sequential: " and the groups detected
	Checks  []checkRow
}

// checkRow is one check.
type checkRow struct {
	ID      text.Untrusted
	Skipped bool
	// Status is the check's status with the code of a failed one,
	// Outcome the same with "skipped" for a skipped check ([checkStatus]).
	Status, Outcome text.Untrusted
	Expected        text.Untrusted
	Detail          text.Untrusted
}

// learnedRow is a valid call learned from the server after synthetic
// arguments errored.
type learnedRow struct {
	Tool, From, Arguments, Verdict text.Untrusted
}

// notCalledPart is the tools not called, each and by reason.
type notCalledPart struct {
	Tools    []notCalledRow
	ByReason []reasonGroup // in the order of each reason's first tool
}

// notCalledRow is a tool not called.
type notCalledRow struct {
	Name, Reason text.Untrusted
}

// reasonGroup is the tools not called for one reason.
type reasonGroup struct {
	Reason text.Untrusted
	Names  []text.Untrusted
}

// lintPart is the metadata lint.
type lintPart struct {
	Rows   []lintRow
	Counts string // "2 warnings, 5 info" ([lintCounts])
}

// lintRow is one metadata finding.
type lintRow struct {
	Severity, Tool, Pointer, Code text.Untrusted
	Where                         text.Untrusted // the tool and the pointer
	Message, Hint                 text.Untrusted
}

// toolPart is a tool and its cases.
type toolPart struct {
	Name   text.Untrusted
	Tested bool
	Task   bool // some case went through tasks/get and tasks/result
	Counts []verdictCount
	Cases  []casePart
}

// verdictCount is how many cases of a tool had a verdict.
type verdictCount struct {
	N       int
	Verdict text.Untrusted
	Known   bool // one of verdictOrder, in that order; the others follow
}

// casePart is one case.
type casePart struct {
	ID         text.Untrusted
	Tone       tone // of the verdict
	Verdict    text.Untrusted
	DurationMs float64
	Flags      []text.Untrusted
	Task       bool
	Timing     text.Untrusted // [timingText]
	// Detail is shown when ShowDetail (a case neither ok nor handled),
	// else LearnedFrom when there is one.
	Detail      text.Untrusted
	ShowDetail  bool
	LearnedFrom text.Untrusted
}

// tone is how a verdict, severity or score reads: the terminal colours
// it, Markdown does not.
type tone int

const (
	toneGood   tone = iota // ok, handled, rejected
	toneFair               // doubtful: errored, tolerated, a warning
	toneBad                // accepted bad input, broken output
	toneSevere             // a critical or error finding
	toneFailed             // crash, hang, protocol violation
	toneMinor              // an info finding
)

// severityTone is the tone of a finding of severity sev.
func severityTone(sev report.Severity) tone {
	switch sev {
	case report.SeverityCritical, report.SeverityError:
		return toneSevere
	case report.SeverityWarning:
		return toneFair
	}
	return toneMinor
}

// verdictTone is the tone of a case of verdict v.
func verdictTone(v report.Verdict) tone {
	switch {
	case v.Failure():
		return toneFailed
	case v == report.Accepted || v == report.OutputViolation:
		return toneBad
	case v == report.Errored || v == report.EmptySuccess || v == report.GeneratorGap || v == report.NotRun || v == report.Tolerated:
		return toneFair
	}
	return toneGood
}

// newSummary builds the summary of rep.
func newSummary(rep *report.Report) *summary {
	m := &summary{
		Server:     serverPartOf(rep),
		Run:        runPartOf(rep),
		Grade:      gradePartOf(rep),
		Dimensions: dimensionRowsOf(rep),
		Findings:   findingsPartOf(rep),
		Checks:     checksPartOf(rep),
		Lint:       lintPartOf(rep.Lint),
	}
	for _, c := range rep.Caps {
		m.Caps = append(m.Caps, capRow{Grade: text.New(c.Grade, 20), NotGraded: c.Grade == score.NotGraded, Reason: text.New(c.Reason, textMax)})
	}
	for _, f := range recommendedFixes(rep) {
		m.Fixes = append(m.Fixes, fixRow{Title: text.New(f.Title, nameMax), Code: text.New(f.Code, 40), Severity: text.New(string(f.Severity), 20),
			Count: f.Count, Fix: text.New(f.Fix, 0)})
	}
	for _, t := range rep.Tools {
		m.Tools = append(m.Tools, toolPartOf(t))
		for _, c := range t.Cases {
			if c.Kind == report.KindValid && c.LearnedFrom != "" {
				m.Learned = append(m.Learned, learnedRow{Tool: text.New(t.Name, nameMax), From: text.New(c.LearnedFrom, nameMax),
					Arguments: text.New(string(c.Arguments), 120), Verdict: text.New(string(c.Verdict), 40)})
			}
		}
	}
	m.NotCalled = notCalledPartOf(rep.Tools)
	return m
}

// serverPartOf is the server of rep and the protocol it spoke.
func serverPartOf(rep *report.Report) serverPart {
	s := rep.Server
	return serverPart{
		Name: text.New(s.Name, nameMax), Version: text.New(s.Version, 40), ProtocolVersion: text.New(s.ProtocolVersion, 20),
		Era: text.New(s.Era, 20), Modern: s.Era == report.EraModern, EraReason: text.New(s.EraReason, 200),
		Transport: text.New(rep.Target.Transport, 40), Target: text.New(orText(rep.Target.URL, rep.Target.Command), 0),
		Listed: rep.Discovery.Tools, Notes: text.All(rep.Discovery.Notes, 200),
	}
}

// runPartOf is how the run of rep went.
func runPartOf(rep *report.Report) runPart {
	s := rep.Summary
	r := runPart{
		Version: text.New(rep.Version, 40), Seed: rep.Seed, Seconds: seconds(float64(rep.DurationMs)),
		Tested: s.ToolsTested, Skipped: s.ToolsSkipped, Cases: s.Cases, Verdicts: verdictLine(s),
		Containment: text.New(containmentShort(rep), 0),
		Eras:        erasOf(rep), EraNotes: text.All(eraNotes(rep.EraComparison), textMax),
		EndedEarly: text.New(rep.EndedEarly, textMax),
	}
	if rep.Run != nil {
		r.ContainmentLines = text.All(rep.Run.Containment, 0)
		r.Warning = text.New(rep.Run.Warning, textMax)
	}
	r.Security = securityLine(rep)
	return r
}

// securityLine says what the security cases did: "off (--security=false)",
// or "56 cases on 3 tools, none proved a flaw"; "" for a static report,
// and for one of a version without them.
func securityLine(rep *report.Report) string {
	switch {
	case rep.Static:
		return ""
	case rep.Config.NoSecurity:
		return "off (--security=false): no security case ran"
	}
	cases, tools, proved := 0, 0, 0
	for _, t := range rep.Tools {
		n := 0
		for _, c := range t.Cases {
			if c.Kind != report.KindSecurity {
				continue
			}
			n++
			for _, f := range c.Flags {
				if report.DescribeCode(f).Exploit {
					proved++
					break
				}
			}
		}
		if n > 0 {
			cases += n
			tools++
		}
	}
	switch {
	case cases == 0 && rep.Scratch == nil:
		return ""
	case cases == 0:
		return "no string property of a called tool took a payload"
	case proved == 0:
		return fmt.Sprintf("%s on %s, none proved a flaw", plural(cases, "case", "cases"), plural(tools, "tool", "tools"))
	}
	return fmt.Sprintf("%s on %s, %d proved a flaw", plural(cases, "case", "cases"), plural(tools, "tool", "tools"), proved)
}

// gradePartOf is the grade of rep, why, and the critical callout.
func gradePartOf(rep *report.Report) gradePart {
	g := gradePart{
		Graded: rep.Graded && rep.Score != nil, CappedFrom: cappedFrom(rep), Untested: score.Untested(rep),
		Text: text.New(gradeText(rep), 40), BadgeURL: BadgeURL(rep), Why: text.New(gradeReason(rep), 0),
		Critical: text.All(rep.Critical, textMax),
	}
	if g.Graded {
		g.Score = *rep.Score
	}
	if rep.Grade != nil {
		g.Letter, g.HasLetter = text.New(*rep.Grade, 20), true
	}
	return g
}

// dimensionRowsOf is the dimensions of rep in display order ([dimensions]).
func dimensionRowsOf(rep *report.Report) []dimensionRow {
	var out []dimensionRow
	for _, d := range dimensions(rep) {
		dim := rep.Dimensions[d.Dimension]
		out = append(out, dimensionRow{Title: text.New(d.Title, nameMax), Score: dim.Score, Weight: d.Weight, Reason: text.New(dim.Reason, textMax)})
	}
	return out
}

// findingsPartOf is the findings of rep, by tool and by tool and code.
func findingsPartOf(rep *report.Report) findingsPart {
	p := findingsPart{Count: len(rep.Findings)}
	for _, g := range groupByTool(rep.Findings) {
		tf := toolFindings{Tool: text.New(g.Tool, nameMax)}
		for _, f := range g.Findings {
			row := findingRow{
				Tone: severityTone(f.Severity), Severity: text.New(string(f.Severity), 20), Code: text.New(f.Code, 40),
				CaseID: text.New(f.CaseID, nameMax), Message: text.New(f.Message, textMax),
				JSONRPC: text.New(f.Reproducer.JSONRPC, reproducerMax), Shell: text.New(f.Reproducer.Shell, reproducerMax),
				Generator: text.New(f.Reproducer.Generator, reproducerMax), Placeholder: text.New(placeholderNote(f.Reproducer.Shell), 0),
			}
			if c, ok := findCase(rep, f); ok && c.Crash != nil {
				row.Stderr = text.New(c.Crash.Stderr, stderrMax)
			}
			tf.Findings = append(tf.Findings, row)
		}
		p.ByTool = append(p.ByTool, tf)
	}
	for _, g := range groupFindings(rep.Findings) {
		p.ByCode = append(p.ByCode, codeFindings{Tool: text.New(g.Tool, 0), Code: text.New(g.Code, 0), Tone: severityTone(g.Severity),
			Severity: text.New(string(g.Severity), 8), Count: g.Count, Message: text.New(groupMessage(g.First), 0)})
	}
	return p
}

// checksPartOf is the checks of rep.
func checksPartOf(rep *report.Report) checksPart {
	p := checksPart{Line: text.New(checkLine(rep), textMax), Short: text.All(shortCheckLines(rep), 0), Protocol: checkRows(protocolChecks(rep))}
	if rep.Lifecycle != nil {
		p.Lifecycle = &lifecyclePart{Line: text.New(lifecycleLine(rep), textMax), Summary: text.New("--sequential: "+rep.Lifecycle.Summary, textMax),
			Checks: checkRows(lifecycleChecks(rep))}
	}
	return p
}

// checkRows is a row per check.
func checkRows(checks []report.Check) []checkRow {
	var out []checkRow
	for _, c := range checks {
		outcome := c.Status
		if c.Status == report.CheckSkip {
			outcome = "skipped"
		}
		out = append(out, checkRow{ID: text.New(c.ID, nameMax), Skipped: c.Status == report.CheckSkip,
			Status: text.New(checkStatus(c.Status, c), 60), Outcome: text.New(checkStatus(outcome, c), 40),
			Expected: text.New(c.Expected, textMax), Detail: text.New(c.Detail, textMax)})
	}
	return out
}

// shortCheckLines are the checks in a line per kind: the protocol checks
// (with the era they ran in, or why none ran), the concurrency checks and
// the lifecycle checks, when they ran.
func shortCheckLines(rep *report.Report) []string {
	parts := checkParts(rep)
	switch {
	case len(parts) == 0:
	case len(protocolChecks(rep)) > 0 && rep.Server.Era != "":
		parts[0] += " (" + rep.Server.Era + " era)"
	case !rep.Static && rep.Server.Era == report.EraLegacy:
		// The era line says why the 2025 era was spoken.
		parts[0] = "protocol checks: none in the 2025 era (--era modern requires the 2026-07-28 revision)"
	}
	if rep.Lifecycle != nil {
		line := "lifecycle checks (--sequential): "
		if cs := lifecycleChecks(rep); len(cs) > 0 {
			line += statusCounts(cs) + "; "
		}
		parts = append(parts, line+rep.Lifecycle.Summary)
	}
	return parts
}

// notCalledPartOf is the tools of tools that were not called.
func notCalledPartOf(tools []report.Tool) notCalledPart {
	var p notCalledPart
	index := map[string]int{}
	for _, t := range tools {
		if t.Tested {
			continue
		}
		reason := orText(t.SkipReason, "no reason recorded")
		p.Tools = append(p.Tools, notCalledRow{Name: text.New(t.Name, nameMax), Reason: text.New(reason, textMax)})
		i, ok := index[reason]
		if !ok {
			i = len(p.ByReason)
			index[reason] = i
			p.ByReason = append(p.ByReason, reasonGroup{Reason: text.New(reason, 0)})
		}
		p.ByReason[i].Names = append(p.ByReason[i].Names, text.New(t.Name, nameMax))
	}
	return p
}

// lintPartOf is the metadata lint.
func lintPartOf(lint []report.Lint) lintPart {
	p := lintPart{Counts: lintCounts(lint)}
	for _, l := range lint {
		where := l.Tool
		if l.Pointer != "" {
			where += " " + l.Pointer
		}
		p.Rows = append(p.Rows, lintRow{Severity: text.New(string(l.Severity), 20), Tool: text.New(l.Tool, nameMax), Pointer: text.New(l.Pointer, nameMax),
			Code: text.New(l.Code, 60), Where: text.New(where, 80), Message: text.New(l.Message, textMax), Hint: text.New(l.Hint, textMax)})
	}
	return p
}

// toolPartOf is the tool t and its cases.
func toolPartOf(t report.Tool) toolPart {
	p := toolPart{Name: text.New(t.Name, nameMax), Tested: t.Tested, Counts: verdictCounts(t.Cases),
		Task: slices.ContainsFunc(t.Cases, func(c report.Case) bool { return c.Task })}
	for _, c := range t.Cases {
		p.Cases = append(p.Cases, casePart{
			ID: text.New(c.ID, nameMax), Tone: verdictTone(c.Verdict), Verdict: text.New(string(c.Verdict), 40), DurationMs: c.DurationMs,
			Flags: text.All(c.Flags, 0), Task: c.Task, Timing: text.New(timingText(c), textMax),
			Detail: text.New(c.Detail, 140), ShowDetail: c.Detail != "" && c.Verdict != report.OK && c.Verdict != report.Handled,
			LearnedFrom: text.New(c.LearnedFrom, nameMax),
		})
	}
	return p
}

// verdictOrder is the order a tool's verdict counts are listed in, worst
// first.
var verdictOrder = []report.Verdict{
	report.Crash, report.Hang, report.ProtocolViolation, report.Accepted, report.OutputViolation,
	report.Errored, report.EmptySuccess, report.GeneratorGap, report.NotRun,
	report.Tolerated, report.Rejected, report.Handled, report.OK,
}

// verdictCounts counts the verdicts of cases: those of verdictOrder in
// its order, then any others in the order they first occur.
func verdictCounts(cases []report.Case) []verdictCount {
	counts := map[report.Verdict]int{}
	var others []report.Verdict
	for _, c := range cases {
		if counts[c.Verdict] == 0 && !slices.Contains(verdictOrder, c.Verdict) {
			others = append(others, c.Verdict)
		}
		counts[c.Verdict]++
	}
	var out []verdictCount
	for _, v := range verdictOrder {
		if n := counts[v]; n > 0 {
			out = append(out, verdictCount{N: n, Verdict: text.New(string(v), 40), Known: true})
		}
	}
	for _, v := range others {
		out = append(out, verdictCount{N: counts[v], Verdict: text.New(string(v), 40)})
	}
	return out
}

// serverName is the server's name and version as m writes them, "unnamed
// server" for a server without a name.
func serverName(s serverPart, m text.Medium) string {
	name := m(s.Name)
	if name == "" {
		name = "unnamed server"
	}
	if v := m(s.Version); v != "" {
		name += " " + v
	}
	return name
}

// groupMessage is the message of f without the opening words of its code
// ("the server crashed: "), which a code column says already.
func groupMessage(f report.Finding) string {
	opening := report.DescribeCode(f.Code).Message
	if rest, ok := strings.CutPrefix(f.Message, opening); ok && opening != "" && strings.TrimLeft(rest, " :") != "" {
		return strings.TrimLeft(rest, " :")
	}
	return f.Message
}

// gradeReason says in one line why the report has its grade: the cap that
// set it (and how many more there are), else the weakest dimension. It
// quotes the caps' reasons, which come from the report file.
func gradeReason(rep *report.Report) string {
	more := func(n int) string {
		if n <= 0 {
			return ""
		}
		return fmt.Sprintf(" (and %s)", plural(n, "more cap", "more caps"))
	}
	if !rep.Graded || rep.Score == nil {
		for _, c := range rep.Caps {
			if c.Grade == score.NotGraded {
				return c.Reason
			}
		}
		return ""
	}
	if rep.Grade != nil {
		// The binding cap: the one whose grade the report has, the worst.
		for _, c := range rep.Caps {
			if c.Grade == *rep.Grade {
				return "at most " + c.Grade + ": " + c.Reason + more(len(rep.Caps)-1)
			}
		}
	}
	var weakest *score.Formula
	var low, measured int
	for _, d := range dimensions(rep) {
		dim, ok := rep.Dimensions[d.Dimension]
		if !ok || dim.Score == nil || d.Weight == 0 {
			continue
		}
		measured++
		if weakest == nil || *dim.Score < low {
			weakest, low = &d, *dim.Score
		}
	}
	if weakest == nil {
		return "the weighted mean of the dimensions" + more(len(rep.Caps))
	}
	if measured == 1 {
		// A static audit (--no-calls): there is no mean to speak of.
		return fmt.Sprintf("the %s score alone, the one dimension measured%s", weakest.Title, more(len(rep.Caps)))
	}
	return fmt.Sprintf("the weighted mean of the dimensions; the weakest is %s (%d)%s", weakest.Title, low, more(len(rep.Caps)))
}

// findingGroup is the findings of one code on one tool.
type findingGroup struct {
	Tool, Code string
	Severity   report.Severity
	Count      int
	First      report.Finding // the worst, as [sortedFindings] orders them
}

// groupFindings groups findings by tool and code, worst first: by
// severity, the code's rank, then the most findings.
func groupFindings(fs []report.Finding) []findingGroup {
	var out []findingGroup
	for _, g := range groupByToolCode(fs) {
		first := g.findings[0]
		out = append(out, findingGroup{Tool: g.tool, Code: g.code, Severity: first.Severity, Count: len(g.findings), First: first})
	}
	slices.SortStableFunc(out, func(a, b findingGroup) int {
		return cmp.Or(
			cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(report.CodeRank(a.Code), report.CodeRank(b.Code)),
			-cmp.Compare(a.Count, b.Count),
			cmp.Compare(a.Tool, b.Tool),
		)
	})
	return out
}
