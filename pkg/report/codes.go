package report

import (
	"slices"
	"strconv"
)

// Severity ranks a finding or a lint entry.
type Severity string

// The severities, worst first.
const (
	SeverityCritical Severity = "critical"
	SeverityError    Severity = "error"
	SeverityWarning  Severity = "warning"
	SeverityInfo     Severity = "info"
)

// Rank orders severities worst first: critical 0, error 1, warning 2, info
// 3, anything else 4.
func (s Severity) Rank() int {
	switch s {
	case SeverityCritical:
		return 0
	case SeverityError:
		return 1
	case SeverityWarning:
		return 2
	case SeverityInfo:
		return 3
	}
	return 4
}

// Code describes one finding code: a failing verdict or a flag of a case.
// [Codes] is the one table of them; the engine, the score, the gates, the
// renderers and the Action all read it, so a new finding is one row here.
type Code struct {
	// Name is the code as reports spell it, the verdict or flag it comes from.
	Name string
	// Flag is true when the code is a case flag rather than a verdict.
	Flag bool
	// Era is true for the code of a case judged differently in the two
	// protocol eras (--era both): neither a verdict nor a flag of one case,
	// it comes from [EraComparison].
	Era      bool
	Severity Severity
	// Title heads the code in reports: "Server crashed".
	Title string
	// Message opens every finding of the code; the case's detail follows.
	Message string
	// Fix says what the server's author should do about it.
	Fix string
	// FailOn is the --fail-on kind that gates on the code.
	FailOn string
}

// CodeEraDifference is the code of a case whose verdict differs between
// the protocol eras (see [EraComparison]).
const CodeEraDifference = "era_difference"

// codes lists every finding code, worst first: reports order findings of one
// severity by their position here.
var codes = []Code{
	{Name: string(Crash), Severity: SeverityCritical, FailOn: "crash",
		Title:   "Server crashed",
		Message: "the server crashed",
		Fix:     "Catch errors in tool handlers and return a result with isError: true instead of exiting, closing the connection or answering with an internal error."},
	{Name: string(Hang), Severity: SeverityCritical, FailOn: "hang",
		Title:   "Server did not answer",
		Message: "the server did not answer",
		Fix:     "Bound every tool call with a timeout and answer (isError: true) when work cannot finish; never block on bad input."},
	{Name: string(ProtocolViolation), Severity: SeverityCritical, FailOn: "protocol",
		Title:   "Protocol violation",
		Message: "the server broke the protocol",
		Fix:     "Write only JSON-RPC messages to stdout (logs go to stderr) and answer every request exactly once with its own id."},
	{Name: FlagLeak, Flag: true, Severity: SeverityCritical, FailOn: "leak",
		Title:   "Internals leaked",
		Message: "the answer leaks internals",
		Fix:     "Do not echo stack traces, file paths or secrets in results or error messages; log them to stderr instead."},
	{Name: string(Accepted), Severity: SeverityError, FailOn: "accepted",
		Title:   "Forbidden input accepted",
		Message: "input the schema forbids was accepted silently",
		Fix:     "Validate arguments against the declared inputSchema before acting and reject bad input with isError: true and a message saying what is wrong."},
	{Name: string(OutputViolation), Severity: SeverityError, FailOn: "output_violation",
		Title:   "Result breaks outputSchema",
		Message: "the result does not match the declared outputSchema",
		Fix:     "Make structuredContent match the declared outputSchema, or fix the schema."},
	{Name: CodeEraDifference, Era: true, Severity: SeverityError, FailOn: CodeEraDifference,
		Title:   "Validation differs by protocol era",
		Message: "the server judged the same input differently in the two protocol eras",
		Fix:     "Run the same validation and error handling for tools/call in both eras (the server/discover and the initialize code paths): one of them lacks a check or lets an error escape."},
	{Name: FlagStderrPanic, Flag: true, Severity: SeverityWarning, FailOn: "stderr_panic",
		Title:   "Panic on stderr",
		Message: "the server printed a panic or uncaught exception on stderr",
		Fix:     "Recover from panics and uncaught exceptions in handlers and turn them into isError results."},
	{Name: string(Errored), Severity: SeverityWarning, FailOn: "errored",
		Title:   "Valid call failed",
		Message: "the valid call failed",
		Fix:     "Check that the tool works with schema-valid input; give realistic example arguments in .mcp-fuzz.yml if the generated ones are synthetic."},
	{Name: string(EmptySuccess), Severity: SeverityWarning, FailOn: "empty_success",
		Title:   "Empty success",
		Message: "the valid call succeeded with no content",
		Fix:     "Return content that tells the model what happened, even when there is nothing to return."},
	{Name: FlagSlow, Flag: true, Severity: SeverityWarning, FailOn: "slow",
		Title:   "Slow valid call",
		Message: "the valid call is slow",
		Fix:     "Speed up the tool or report progress; models and clients time out on slow calls."},
	{Name: FlagBloated, Flag: true, Severity: SeverityWarning, FailOn: "bloated",
		Title:   "Bloated answer",
		Message: "the valid answer is bloated",
		Fix:     "Return less: paginate, summarise or truncate large results, which waste the model's context."},
	{Name: string(GeneratorGap), Severity: SeverityInfo, FailOn: "generator_gap",
		Title:   "No valid input generated",
		Message: "mcp-fuzz could not generate arguments that satisfy the schema",
		Fix:     "Simplify the inputSchema or give example arguments in .mcp-fuzz.yml so the tool can be exercised."},
}

// Codes returns every finding code, worst first.
func Codes() []Code { return slices.Clone(codes) }

// LookupCode returns the code named name (a verdict or a flag); ok is false
// for verdicts that are not findings (ok, handled, ...) and unknown names.
func LookupCode(name string) (c Code, ok bool) {
	i := slices.IndexFunc(codes, func(c Code) bool { return c.Name == name })
	if i < 0 {
		return Code{}, false
	}
	return codes[i], true
}

// DescribeCode is [LookupCode] with a generic title and fix for a code this
// version does not know (a report from a newer one).
func DescribeCode(name string) Code {
	if c, ok := LookupCode(name); ok {
		return c
	}
	return Code{Name: name, Title: name, Fix: "See the findings with code " + strconv.Quote(name) + " for details."}
}

// CodeRank is the position of a code in [Codes], unknown codes last.
func CodeRank(name string) int {
	if i := slices.IndexFunc(codes, func(c Code) bool { return c.Name == name }); i >= 0 {
		return i
	}
	return len(codes)
}
