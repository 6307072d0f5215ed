package score

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The helpers build reports by hand, the way the engine would.

// valid is a valid call with verdict v.
func valid(v report.Verdict, flags ...string) report.Case {
	return report.Case{Kind: "valid", Verdict: v, Flags: flags}
}

// bad is a forbidden bad input (wrong_type) with verdict v.
func bad(v report.Verdict, flags ...string) report.Case {
	return report.Case{Kind: "wrong_type", Forbidden: true, Verdict: v, Flags: flags}
}

// crashed is a forbidden bad input that crashed the server the way how says
// (report.CrashExit, CrashClosed, CrashInternalError).
func crashed(how string) report.Case {
	c := bad(report.Crash)
	c.Crash = &report.CrashInfo{How: how}
	return c
}

// allowed is a bad-input kind the schema allows (extra_property) with verdict v.
func allowed(v report.Verdict, flags ...string) report.Case {
	return report.Case{Kind: "extra_property", Verdict: v, Flags: flags}
}

// times repeats c n times.
func times(n int, c report.Case) []report.Case {
	out := make([]report.Case, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// tool is a tested tool; it is confirmed when its valid call succeeded, as
// the engine decides. Case ids are filled in as TOOL/KIND/N.
func tool(name string, groups ...[]report.Case) report.Tool {
	t := report.Tool{Name: name, Tested: true}
	for _, g := range groups {
		for _, c := range g {
			c.ID = fmt.Sprintf("%s/%s/%d", name, c.Kind, len(t.Cases))
			if c.Kind == report.KindValid && c.Verdict.Confirms() {
				t.Confirmed = true
			}
			t.Cases = append(t.Cases, c)
		}
	}
	return t
}

func one(c report.Case) []report.Case { return []report.Case{c} }

// server is a report of tools.
func server(tools ...report.Tool) *report.Report {
	return &report.Report{Tools: tools, Summary: report.Summarize(tools)}
}

func ptr(n int) *int { return &n }

func scoreOf(d report.Dimension) string {
	if d.Score == nil {
		return "nil"
	}
	return fmt.Sprint(*d.Score)
}
