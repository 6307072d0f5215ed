package audit

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// What `mcp-fuzz replay` and the serve tool replay share: finding the case
// a case or finding id names in a saved report.

// ReplayTarget is the case id that a replay's CASE-ID argument names, and
// the era it names: a finding id is taken for its case's
// ("echo/null/q#crash" is case echo/null/q), and that of a failure an
// --era both run saw only in the other era for its era too
// ("echo/null/q#crash@legacy": legacy). The era is "" when it names none.
func ReplayTarget(id string) (caseID, era string) {
	i := strings.LastIndex(id, "#")
	if i < 0 {
		return id, ""
	}
	code, e, _ := strings.Cut(id[i+1:], "@")
	if _, ok := report.LookupCode(code); !ok {
		// A case id of its own with a "#" in it ("t/oversize/x#string").
		return id, ""
	}
	if e == engine.EraModern || e == engine.EraLegacy {
		era = e
	}
	return id[:i], era
}

// ReplayCase finds case id in rep: among its own tools' cases, or, for
// the other era of an --era both report, among the failures seen only in
// that era (a tool that era alone lists, or arguments of its own), which
// win when era names that era.
func ReplayCase(rep *report.Report, id, era string) (tool string, c report.Case, ok bool) {
	tool, c, ok = ownCase(rep, id)
	if cmp := rep.EraComparison; cmp != nil && (era == cmp.Era || !ok) {
		for _, f := range cmp.Failures {
			if f.Case.ID == id {
				return f.Tool, f.Case, true
			}
		}
	}
	return tool, c, ok
}

// ownCase finds case id among the cases rep's own audit ran.
func ownCase(rep *report.Report, id string) (tool string, c report.Case, ok bool) {
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if c.ID == id {
				return t.Name, c, true
			}
		}
	}
	return "", report.Case{}, false
}

// LearnedArgs returns the learned valid arguments of tool in rep (see
// report.Case.LearnedFrom) for [engine.Config.Learned]; nil when its valid
// call was not learned.
func LearnedArgs(rep *report.Report, tool string) map[string]map[string]any {
	for _, t := range rep.Tools {
		if t.Name != tool {
			continue
		}
		for _, c := range t.Cases {
			if c.Kind != report.KindValid || c.LearnedFrom == "" || !c.Verdict.Confirms() || c.Arguments == nil {
				continue
			}
			var args map[string]any
			d := json.NewDecoder(bytes.NewReader(c.Arguments))
			d.UseNumber()
			if d.Decode(&args) == nil && args != nil {
				return map[string]map[string]any{tool: args}
			}
		}
	}
	return nil
}
