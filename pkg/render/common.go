package render

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// dimensionInfo is one row of the scoring table (SPEC §10).
type dimensionInfo struct {
	Key, Title string
	Weight     int
}

// dimensionOrder lists the dimensions in the order reports show them.
var dimensionOrder = []dimensionInfo{
	{"robustness", "Robustness", 30},
	{"validation", "Validation", 25},
	{"errorQuality", "Error quality", 10},
	{"liveness", "Liveness", 15},
	{"performance", "Performance", 5},
	{"schema", "Schema", 15},
}

// dimensions returns the known dimensions in order, then any others the
// report carries, sorted by key (weight 0: unknown).
func dimensions(rep *report.Report) []dimensionInfo {
	out := slices.Clone(dimensionOrder)
	var extra []dimensionInfo
	for k := range rep.Dimensions {
		if !slices.ContainsFunc(dimensionOrder, func(d dimensionInfo) bool { return d.Key == k }) {
			extra = append(extra, dimensionInfo{Key: k, Title: k})
		}
	}
	slices.SortFunc(extra, func(a, b dimensionInfo) int { return cmp.Compare(a.Key, b.Key) })
	return append(out, extra...)
}

// sortedFindings returns the findings worst first, then by tool, case and
// code, without changing rep.
func sortedFindings(fs []report.Finding) []report.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b report.Finding) int {
		return cmp.Or(
			cmp.Compare(report.SeverityRank(a.Severity), report.SeverityRank(b.Severity)),
			cmp.Compare(codeRank(a.Code), codeRank(b.Code)),
			cmp.Compare(a.Tool, b.Tool),
			cmp.Compare(a.CaseID, b.CaseID),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return out
}

// toolGroup is the findings of one tool ("" for the server as a whole).
type toolGroup struct {
	Tool     string
	Findings []report.Finding
}

// groupByTool groups findings by tool, the group with the worst finding
// first (ties: more findings first, then name).
func groupByTool(fs []report.Finding) []toolGroup {
	var groups []toolGroup
	index := map[string]int{}
	for _, f := range sortedFindings(fs) {
		i, ok := index[f.Tool]
		if !ok {
			i = len(groups)
			index[f.Tool] = i
			groups = append(groups, toolGroup{Tool: f.Tool})
		}
		groups[i].Findings = append(groups[i].Findings, f)
	}
	slices.SortStableFunc(groups, func(a, b toolGroup) int {
		return cmp.Or(
			cmp.Compare(report.SeverityRank(a.Findings[0].Severity), report.SeverityRank(b.Findings[0].Severity)),
			-cmp.Compare(len(a.Findings), len(b.Findings)),
			cmp.Compare(a.Tool, b.Tool),
		)
	})
	return groups
}

// codeCount is how often a finding code occurred, with its worst severity.
type codeCount struct {
	Code, Severity string
	Count          int
	Tools          int
}

// countCodes tallies findings by code, worst first, then most frequent.
func countCodes(fs []report.Finding) []codeCount {
	var out []codeCount
	index := map[string]int{}
	tools := map[string]map[string]bool{}
	for _, f := range fs {
		i, ok := index[f.Code]
		if !ok {
			i = len(out)
			index[f.Code] = i
			out = append(out, codeCount{Code: f.Code, Severity: f.Severity})
			tools[f.Code] = map[string]bool{}
		}
		out[i].Count++
		tools[f.Code][f.Tool] = true
		if report.SeverityRank(f.Severity) < report.SeverityRank(out[i].Severity) {
			out[i].Severity = f.Severity
		}
	}
	for i := range out {
		out[i].Tools = len(tools[out[i].Code])
	}
	slices.SortStableFunc(out, func(a, b codeCount) int {
		return cmp.Or(
			cmp.Compare(report.SeverityRank(a.Severity), report.SeverityRank(b.Severity)),
			cmp.Compare(codeRank(a.Code), codeRank(b.Code)),
			-cmp.Compare(a.Count, b.Count),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return out
}

// codeOrder ranks the known finding codes within a severity, worst first.
var codeOrder = []string{
	string(report.Crash), string(report.Hang), string(report.ProtocolViolation), report.FlagLeak,
	string(report.Accepted), string(report.OutputViolation),
	report.FlagStderrPanic, string(report.Errored), string(report.EmptySuccess), report.FlagSlow, report.FlagBloated,
	string(report.GeneratorGap),
}

// codeRank is the position of code in codeOrder, unknown codes last.
func codeRank(code string) int {
	if i := slices.Index(codeOrder, code); i >= 0 {
		return i
	}
	return len(codeOrder)
}

// codeInfo describes a finding code: a title and what to do about it.
type codeInfo struct {
	Title, Fix string
}

// codes describes the finding codes the engine emits (verdicts and flags).
var codes = map[string]codeInfo{
	string(report.Crash):             {"Server crashed", "Catch errors in tool handlers and return a result with isError: true instead of exiting, closing the connection or answering with an internal error."},
	string(report.Hang):              {"Server did not answer", "Bound every tool call with a timeout and answer (isError: true) when work cannot finish; never block on bad input."},
	string(report.ProtocolViolation): {"Protocol violation", "Write only JSON-RPC messages to stdout (logs go to stderr) and answer every request exactly once with its own id."},
	string(report.Accepted):          {"Forbidden input accepted", "Validate arguments against the declared inputSchema before acting and reject bad input with isError: true and a message saying what is wrong."},
	string(report.OutputViolation):   {"Result breaks outputSchema", "Make structuredContent match the declared outputSchema, or fix the schema."},
	string(report.EmptySuccess):      {"Empty success", "Return content that tells the model what happened, even when there is nothing to return."},
	string(report.Errored):           {"Valid call failed", "Check that the tool works with schema-valid input; give realistic example arguments in .mcp-fuzz.yml if the generated ones are synthetic."},
	string(report.GeneratorGap):      {"No valid input generated", "Simplify the inputSchema or give example arguments in .mcp-fuzz.yml so the tool can be exercised."},
	report.FlagLeak:                  {"Internals leaked", "Do not echo stack traces, file paths or secrets in results or error messages; log them to stderr instead."},
	report.FlagStderrPanic:           {"Panic on stderr", "Recover from panics and uncaught exceptions in handlers and turn them into isError results."},
	report.FlagSlow:                  {"Slow valid call", "Speed up the tool or report progress; models and clients time out on slow calls."},
	report.FlagBloated:               {"Bloated answer", "Return less: paginate, summarise or truncate large results, which waste the model's context."},
}

// describe returns the title and fix of code, with generic text for codes
// this package does not know.
func describe(code string) codeInfo {
	if c, ok := codes[code]; ok {
		return c
	}
	return codeInfo{Title: code, Fix: "See the findings with code " + strconv.Quote(code) + " for details."}
}

// gradeText is "C 81", "81" or "not graded".
func gradeText(rep *report.Report) string {
	switch {
	case !rep.Graded || rep.Score == nil:
		return "not graded"
	case rep.Grade == nil:
		return strconv.Itoa(*rep.Score)
	}
	return fmt.Sprintf("%s %d", *rep.Grade, *rep.Score)
}

// findCase returns the case of a finding, if the report holds it.
func findCase(rep *report.Report, tool, id string) (report.Case, bool) {
	for _, t := range rep.Tools {
		if t.Name != tool {
			continue
		}
		for _, c := range t.Cases {
			if c.ID == id {
				return c, true
			}
		}
	}
	return report.Case{}, false
}

// seconds formats milliseconds as seconds.
func seconds(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) }

// plural returns "1 case" or "2 cases".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// placeholderNote explains [report.ReportPlaceholder] when a reproducer
// uses it, and is empty otherwise.
func placeholderNote(shell string) string {
	if !strings.Contains(shell, " "+report.ReportPlaceholder+" ") {
		return ""
	}
	return report.ReportPlaceholder + " stands for this run's JSON report: run again with -o report.json to write one"
}

// argumentsText shows a case's arguments: their JSON, or the digest of
// arguments the report compacted.
func argumentsText(c report.Case) string {
	if c.ArgumentsDigest != nil {
		return c.ArgumentsDigest.String() + " (compacted; mcp-fuzz replay regenerates them)"
	}
	return string(c.Arguments)
}
