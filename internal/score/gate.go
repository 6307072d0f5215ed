package score

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Errors of gate configuration; callers exit 2 (usage error) on them.
var (
	ErrUnknownKind      = errors.New("unknown finding kind")
	ErrUnknownDimension = errors.New("unknown dimension")
	ErrNoBaseline       = errors.New("gating on new findings needs a baseline report")
	ErrNoneCombined     = errors.New(`"none" turns every finding gate off and cannot be combined with other kinds`)
)

// FailKinds returns the kinds --fail-on accepts, as their canonical finding
// codes, in the order of [report.Codes].
func FailKinds() []string {
	var out []string
	for _, c := range report.Codes() {
		out = append(out, c.Name)
	}
	return out
}

// DefaultFailOn is the gate of a run that sets none (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes): every
// critical code of the catalogue (the security flaws, crash, hang,
// protocol_violation, leak), so that a fuzzer that finds a crash turns CI
// red.
func DefaultFailOn() []string {
	return codesWhere(func(c report.Code) bool { return c.Severity == report.SeverityCritical })
}

// codesWhere lists the names of the catalogue's codes that keep accepts.
func codesWhere(keep func(report.Code) bool) []string {
	var out []string
	for _, c := range report.Codes() {
		if keep(c) {
			out = append(out, c.Name)
		}
	}
	return out
}

// FailOnNone is the --fail-on value that turns the default gate off.
const FailOnNone = "none"

// Group kinds --fail-on takes besides the codes: "default" stands for
// [DefaultFailOn] (so that "default,envelope" adds to it rather than
// replacing it), "checks" for every code a protocol or lifecycle check
// fails with, "security" for every security flaw a payload proves
// ([report.Code.Exploit]).
const (
	FailOnDefault  = "default"
	FailOnChecks   = "checks"
	FailOnSecurity = "security"
)

// exploitCodes are the codes of the security flaws ([report.Code.Exploit]).
func exploitCodes() []string { return codesWhere(func(c report.Code) bool { return c.Exploit }) }

// checkCodes are the codes of the protocol and lifecycle checks
// ([report.Code.Check]).
func checkCodes() []string { return codesWhere(func(c report.Code) bool { return c.Check }) }

// Gates are the CI gates of docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes. The zero value gates nothing.
type Gates struct {
	FailUnder    *int           // minimum overall score
	FailUnderDim map[string]int // dimension name (any spelling [ParseDimension] accepts) -> minimum
	FailOn       []string       // finding kinds that fail, see [ParseFailOn]
	Baseline     *report.Report // a previous report, or nil
	// FailOnNew, with Baseline, lets only findings whose [report.Finding.ID]
	// is absent from the baseline fail. Without FailOn, any new critical or
	// error finding fails.
	FailOnNew bool
	// Expected maps accepted case ids or finding ids to why they are
	// accepted; they never fail a gate.
	Expected map[string]string
	// Default is true when FailOn is [DefaultFailOn] because no gate was
	// set: the lines of a missed gate then say how to turn it off.
	Default bool
}

// Accepted reports whether f is an expected finding (by its id or its
// case's): one that never fails a gate.
func (g Gates) Accepted(f report.Finding) bool {
	if _, ok := g.Expected[f.ID]; ok {
		return true
	}
	_, ok := g.Expected[f.CaseID]
	return ok && f.CaseID != ""
}

// Result is the outcome of [Check].
type Result struct {
	Passed   bool
	Failures []string // one human line per missed gate
}

// ParseFailOn parses a comma-separated --fail-on list into canonical kinds
// (finding codes), without duplicates. Kinds are case-insensitive, "-" may
// stand for "_", and a code's [report.Code.FailOn] name ("protocol") stands
// for the code.
//
// "none" ([FailOnNone]) alone gives no kinds: no finding fails, the default
// gate included; with other kinds it is an error.
func ParseFailOn(s string) ([]string, error) {
	var kinds []string
	none := false
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.EqualFold(part, FailOnNone) {
			none = true
			continue
		}
		group := map[string][]string{FailOnDefault: DefaultFailOn(), FailOnChecks: checkCodes(), FailOnSecurity: exploitCodes()}[strings.ToLower(part)]
		if group == nil {
			k, err := parseKind(part)
			if err != nil {
				return nil, err
			}
			group = []string{k}
		}
		for _, k := range group {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	if none && len(kinds) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoneCombined, s)
	}
	return kinds, nil
}

func parseKind(s string) (string, error) {
	k := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
	var valid []string
	for _, c := range report.Codes() {
		if k == c.Name || k == c.FailOn {
			return c.Name, nil
		}
		valid = append(valid, c.FailOn)
	}
	valid = append(valid, FailOnDefault, FailOnChecks, FailOnSecurity)
	return "", fmt.Errorf("%w %q%s (valid: %s, or %s)", ErrUnknownKind, s, suggest.Hint(k, valid), strings.Join(valid, ", "), FailOnNone)
}

// ParseDimension turns a dimension name as a user may write it
// ("error-quality", "error_quality", "ErrorQuality", ...) into its key.
func ParseDimension(name string) (string, error) {
	norm := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(name)))
	var valid []string
	for _, f := range formulas {
		if strings.ToLower(f.Dimension) == norm {
			return f.Dimension, nil
		}
		valid = append(valid, flagName(f.Dimension))
	}
	return "", fmt.Errorf("%w %q (valid: %s)", ErrUnknownDimension, name, strings.Join(valid, ", "))
}

// flagName spells a dimension key as in --fail-under-DIM: errorQuality -> error-quality.
func flagName(key string) string {
	var b strings.Builder
	for _, r := range key {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Validate reports the first configuration error of g: an unknown kind or
// dimension, or FailOnNew without a baseline.
func (g Gates) Validate() error {
	for _, k := range g.FailOn {
		if _, err := parseKind(k); err != nil {
			return err
		}
	}
	for d := range g.FailUnderDim {
		if _, err := ParseDimension(d); err != nil {
			return err
		}
	}
	if g.FailOnNew && g.Baseline == nil {
		return ErrNoBaseline
	}
	return nil
}

// Check applies the gates to a scored report (see [Apply]). Its lines name
// the gates by their option names without dashes ("fail-under 80"), which
// read the same for a flag, an Action input and a config key. A gate that
// cannot be evaluated fails with a line saying why: --fail-under on a report
// that is not graded, a dimension gate on a dimension that was not measured,
// and a configuration error [Gates.Validate] would report.
func Check(rep *report.Report, g Gates) Result {
	var fails []string
	if err := g.Validate(); err != nil {
		fails = append(fails, err.Error())
	}
	if g.FailUnder != nil {
		switch {
		case !rep.Graded || rep.Score == nil:
			fails = append(fails, fmt.Sprintf("the report is not graded (%s), so fail-under %d is missed", notGradedWhy(rep), *g.FailUnder))
		case *rep.Score < *g.FailUnder:
			fails = append(fails, fmt.Sprintf("score %d is under fail-under %d", *rep.Score, *g.FailUnder))
		}
	}
	for _, f := range formulas { // in display order
		for _, name := range slices.Sorted(maps.Keys(g.FailUnderDim)) {
			if key, err := ParseDimension(name); err == nil && key == f.Dimension {
				if line := dimensionFailure(rep, key, g.FailUnderDim[name]); line != "" {
					fails = append(fails, line)
				}
			}
		}
	}
	fails = append(fails, findingFailures(rep, g)...)
	if line := nothingTested(rep, g); line != "" {
		fails = append(fails, line)
	}
	return Result{Passed: len(fails) == 0, Failures: fails}
}

// nothingTested misses the default gate when the run called none of the
// server's tools: a server whose tools are all skipped (none annotated
// readOnlyHint: true, say) must not pass CI with no call made. An explicit gate decides for
// itself (--fail-under misses an ungraded run; --fail-on none passes it).
func nothingTested(rep *report.Report, g Gates) string {
	// A server with no tool has nothing to fuzz, and says so; a static
	// audit (--no-calls) calls none on purpose, and is graded on Schema.
	if untested, listed := UntestedCount(rep); !g.Default || rep.Static || listed == 0 || untested < listed {
		return ""
	}
	skipped := fmt.Sprintf("all %d tools were skipped (the first: %s)", len(rep.Tools), rep.Tools[0].SkipReason)
	if len(rep.Tools) == 1 {
		skipped = fmt.Sprintf("the server's only tool was skipped (%s)", rep.Tools[0].SkipReason)
	}
	return "nothing was tested: " + skipped + "; the default gate needs at least one tested tool (include-destructive against a sandbox, tools, or fail-on none)"
}

// dimensionFailure says why dimension key of rep misses the gate floor, or "".
func dimensionFailure(rep *report.Report, key string, floor int) string {
	flag := "fail-under-" + flagName(key)
	d, ok := rep.Dimensions[key]
	switch {
	case !ok || d.Score == nil:
		why := strings.TrimPrefix(d.Reason, "not measured: ")
		if why == "" {
			why = "no score"
		}
		return fmt.Sprintf("%s was not measured (%s), so %s %d is missed", key, why, flag, floor)
	case *d.Score < floor:
		return fmt.Sprintf("%s %d is under %s %d", key, *d.Score, flag, floor)
	}
	return ""
}

// findingFailures applies --fail-on and --fail-on-new: one line per kind (or
// one for new findings) listing the finding ids.
func findingFailures(rep *report.Report, g Gates) []string {
	var kinds []string
	for _, k := range g.FailOn {
		if c, err := parseKind(k); err == nil && !slices.Contains(kinds, c) {
			kinds = append(kinds, c)
		}
	}
	newOnly := g.FailOnNew && g.Baseline != nil
	if len(kinds) == 0 && !newOnly {
		return nil
	}
	old := map[string]bool{}
	if newOnly {
		for _, f := range g.Baseline.Findings {
			old[f.ID] = true
		}
	}
	byKind := map[string][]string{}
	for _, f := range rep.Findings {
		if g.Accepted(f) {
			continue
		}
		if newOnly && old[f.ID] {
			continue
		}
		switch {
		case len(kinds) > 0:
			if slices.Contains(kinds, f.Code) {
				byKind[f.Code] = append(byKind[f.Code], f.ID)
			}
		case f.Severity.Rank() <= report.SeverityError.Rank():
			byKind[""] = append(byKind[""], f.ID)
		}
	}
	qualifier := ""
	if newOnly {
		qualifier = "new "
	}
	var fails []string
	if ids := byKind[""]; len(ids) > 0 {
		fails = append(fails, fmt.Sprintf("%s not in the baseline (fail-on-new): %s",
			plural(len(ids), "critical or error finding is", "critical or error findings are"), idList(ids)))
	}
	for _, k := range kinds {
		if ids := byKind[k]; len(ids) > 0 {
			gate := "fail-on " + report.DescribeCode(k).FailOn
			if g.Default {
				gate = "the default gate fail-on " + DefaultFailOnNames() + "; fail-on none turns it off"
			}
			fails = append(fails, fmt.Sprintf("%s %s (%s): %s",
				plural(len(ids), qualifier+k, qualifier+k), pluralFinding(len(ids)), gate, idList(ids)))
		}
	}
	return fails
}

// DefaultFailOnNames spells [DefaultFailOn] as --fail-on takes it:
// "security,crash,hang,protocol,leak".
func DefaultFailOnNames() string {
	var names []string
	for _, k := range DefaultFailOn() {
		if report.DescribeCode(k).Exploit {
			// One word for the group, which --fail-on takes too.
			if !slices.Contains(names, FailOnSecurity) {
				names = append(names, FailOnSecurity)
			}
			continue
		}
		names = append(names, report.DescribeCode(k).FailOn)
	}
	return strings.Join(names, ",")
}

func pluralFinding(n int) string {
	if n == 1 {
		return "finding"
	}
	return "findings"
}

// idList joins finding ids, eliding past the tenth.
func idList(ids []string) string {
	const most = 10
	if len(ids) <= most {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:most], ", ") + fmt.Sprintf(" and %d more", len(ids)-most)
}

func notGradedWhy(rep *report.Report) string {
	for _, c := range rep.Caps {
		if c.Grade == NotGraded {
			return c.Reason
		}
	}
	return "no score"
}
