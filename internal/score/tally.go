package score

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// tally is every count the dimensions, caps and callout need, gathered in one
// pass over the tested tools' cases.
type tally struct {
	listed, tested, confirmed int
	casesRun                  int // every case but not_run

	badRun, badSurvived int // robustness

	forbRun, forbCaught int // validation, confirmed tools only
	unconfCaught        int // handled/rejected bad inputs on unconfirmed tools
	unconfTools         int // tested tools that are not confirmed
	exploits            int // security flaws proved by their evidence

	eqHandled, eqRejected, eqLeaks int // error quality, confirmed tools only

	validRun, validOK, validGaps int
	validNotOK                   map[report.Verdict]int

	perfMeasured        int
	slowTools, bigTools []string

	// failures counts crash, hang, protocol_violation and leak cases, and
	// lists the tools they happened on, in report order.
	failures     map[string]int
	failureTools map[string][]string

	// crashHow counts crash cases by how they happened ([report.CrashInfo]
	// How: exit, closed, internal_error; "" for a report without it).
	crashHow map[string]int

	// otherEra is the other era of an --era both report, and
	// otherEraCaps counts the failures seen only there by the cap they
	// count for: capSession, capInternal, capLeak.
	otherEra     string
	otherEraCaps map[string]int
}

// The caps a failure seen only in the other era counts for (see
// [tally.countOtherEra]).
const (
	capSession  = "session"
	capInternal = "internal"
	capLeak     = "leak"
)

func count(rep *report.Report) tally {
	t := tally{
		listed:       len(rep.Tools),
		validNotOK:   map[report.Verdict]int{},
		failures:     map[string]int{},
		failureTools: map[string][]string{},
		crashHow:     map[string]int{},
		otherEraCaps: map[string]int{},
	}
	for _, tool := range rep.Tools {
		if !tool.Tested {
			continue
		}
		t.tested++
		if tool.Confirmed {
			t.confirmed++
		} else {
			t.unconfTools++
		}
		measured, slow, big := false, false, false
		for _, c := range tool.Cases {
			if c.Verdict == report.NotRun {
				continue
			}
			t.casesRun++
			if c.Verdict.Failure() {
				t.fail(string(c.Verdict), tool.Name)
			}
			if c.Verdict == report.Crash {
				how := ""
				if c.Crash != nil {
					how = c.Crash.How
				}
				t.crashHow[how]++
			}
			if c.HasFlag(report.FlagLeak) {
				t.fail(report.FlagLeak, tool.Name)
			}
			if c.Kind == report.KindSecurity {
				// A security case measures no dimension: a payload the
				// schema allows may be refused or served. What counts is
				// a flaw it proved, and a failure (above).
				for _, f := range c.Flags {
					if code, ok := report.LookupCode(f); ok && code.Exploit {
						t.fail(f, tool.Name)
						t.exploits++
					}
				}
				continue
			}
			if c.Verdict == report.GeneratorGap {
				if c.Kind == report.KindValid {
					t.validGaps++
				}
				continue
			}
			if c.Kind == report.KindValid {
				t.validRun++
				if c.Verdict == report.OK {
					t.validOK++
				} else {
					t.validNotOK[c.Verdict]++
				}
				if c.Verdict.Answered() {
					measured = true
					slow = slow || c.HasFlag(report.FlagSlow)
					big = big || c.HasFlag(report.FlagBloated)
				}
				continue
			}
			t.badRun++
			if !c.Verdict.Failure() {
				t.badSurvived++
			}
			caught := c.Verdict == report.Handled || c.Verdict == report.Rejected
			if !tool.Confirmed {
				if caught {
					t.unconfCaught++
				}
				continue
			}
			if c.Forbidden {
				t.forbRun++
				if caught {
					t.forbCaught++
				}
			}
			if caught {
				if c.Verdict == report.Handled {
					t.eqHandled++
				} else {
					t.eqRejected++
				}
				if c.HasFlag(report.FlagLeak) {
					t.eqLeaks++
				}
			}
		}
		if measured {
			t.perfMeasured++
			if slow {
				t.slowTools = append(t.slowTools, tool.Name)
			}
			if big {
				t.bigTools = append(t.bigTools, tool.Name)
			}
		}
	}
	t.countServerViolations(rep)
	t.countChecks(rep)
	t.countOtherEra(rep)
	return t
}

// inputCheck reports whether c is a resources or prompts check
// (docs/BEHAVIOUR.md#checks-beyond-single-calls): a bad request to a server feature, scored like a bad-input case.
func inputCheck(c report.Check) bool {
	g, _, _ := strings.Cut(c.ID, "/")
	return g == "resources" || g == "prompts"
}

// checksPlace names the protocol checks where the critical callout names
// tools.
const checksPlace = "the protocol checks"

// lifecyclePlace names the lifecycle checks (--sequential) there: a
// create, read or delete call of theirs that crashed or hung caps the
// grade like any call's.
const lifecyclePlace = "the lifecycle checks"

// countChecks counts the protocol checks that broke the server (a crash, a
// hang, a protocol violation) like a case's for the caps and the critical
// callout. Not for the dimensions: no tool's input caused them, and a
// check that the server merely refused wrongly is a finding of its own
// severity.
func (t *tally) countChecks(rep *report.Report) {
	for _, c := range rep.Checks {
		if inputCheck(c) && c.Status != report.CheckSkip {
			// The resources and prompts checks send bad input, as a
			// tool's cases do: they count for Robustness like them.
			t.badRun++
			if !(c.Status == report.CheckFail && report.Verdict(c.Code).Failure()) {
				t.badSurvived++
			}
		}
		if c.Status != report.CheckFail || !report.Verdict(c.Code).Failure() {
			continue
		}
		place := checksPlace
		switch c.Group {
		case report.CheckGroupLifecycle:
			place = lifecyclePlace
		case report.CheckGroupConcurrency:
			place = "the concurrency checks"
		}
		t.fail(c.Code, place)
		if report.Verdict(c.Code) == report.Crash {
			how := ""
			if c.Crash != nil {
				how = c.Crash.How
			}
			t.crashHow[how]++
		}
	}
}

// countOtherEra counts, like a case's, the failures an --era both run saw
// only in the other era (see [report.EraComparison.Failures]), on a tool
// of both eras or on one only the other era lists: a crash, hang,
// protocol violation or leak there caps the grade and raises the critical
// callout as one in the report's own era does, the place named "TOOL
// (legacy era)". Not for the dimensions, which measure the report's own
// audit.
func (t *tally) countOtherEra(rep *report.Report) {
	cmp := rep.EraComparison
	if cmp == nil {
		return
	}
	t.otherEra = cmp.Era
	for _, f := range cmp.Failures {
		place := f.Tool + " (" + cmp.Era + " era)"
		for _, code := range f.Codes {
			switch {
			case code == report.FlagLeak:
				t.fail(report.FlagLeak, place)
				t.otherEraCaps[capLeak]++
				continue
			case !report.Verdict(code).Failure():
				continue
			}
			t.fail(code, place)
			if report.Verdict(code) != report.Crash {
				t.otherEraCaps[capSession]++
				continue
			}
			how := ""
			if f.Case.Crash != nil {
				how = f.Case.Crash.How
			}
			t.crashHow[how]++
			if how == report.CrashInternalError {
				t.otherEraCaps[capInternal]++
			} else {
				t.otherEraCaps[capSession]++
			}
		}
	}
}

// inOtherEra says " (2 in the legacy era)" when some of the failures a
// cap counts were seen only in the other era, else "": a reader of the
// report's own cases would not find them there.
func (t *tally) inOtherEra(capKind string) string {
	if n := t.otherEraCaps[capKind]; n > 0 {
		return fmt.Sprintf(" (%d in the %s era)", n, t.otherEra)
	}
	return ""
}

// serverPlace names the server's violations outside any tool call where
// the critical callout names tools.
const serverPlace = "the server, outside any tool call"

// countServerViolations counts the protocol violations outside any tool
// call (a banner on stdout, a log line between calls) like a case's for the
// caps and the critical callout. Not for Robustness: no bad input caused
// them.
func (t *tally) countServerViolations(rep *report.Report) {
	if rep.ServerViolationCount <= 0 {
		return
	}
	kind := string(report.ProtocolViolation)
	t.failures[kind] += rep.ServerViolationCount
	t.failureTools[kind] = append(t.failureTools[kind], serverPlace)
}

func (t *tally) fail(kind, tool string) {
	t.failures[kind]++
	if !slices.Contains(t.failureTools[kind], tool) {
		t.failureTools[kind] = append(t.failureTools[kind], tool)
	}
}

// perfClean is the number of measured tools neither slow nor bloated.
func (t *tally) perfClean() int {
	bad := len(t.slowTools)
	for _, n := range t.bigTools {
		if !slices.Contains(t.slowTools, n) {
			bad++
		}
	}
	return t.perfMeasured - bad
}
