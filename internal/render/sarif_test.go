package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifcheck"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// sarifOptions locate the golden files' results in a config file with a
// per-tool entry for get_weather.
var sarifOptions = SARIFOptions{
	Location: SARIFLocation{URI: "servers/weather/.mcp-fuzz.yml", Line: 1, ToolLines: map[string]int{"get_weather": 7}},
	Category: "ci weather",
}

func decodeSARIF(t *testing.T, b []byte) sarifLog {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	return log
}

// Every report renders to a SARIF log that the official schema and code
// scanning's documented requirements accept: one result per (tool, code)
// holding all its findings, each with its own fingerprint.
func TestSARIF(t *testing.T) {
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			rep := r.rep()
			out, err := SARIF(rep, sarifOptions)
			if err != nil {
				t.Fatal(err)
			}
			if err := sarifcheck.Check(out, sarifcheck.Options{}); err != nil {
				t.Errorf("SARIF fails the checks:\n%v", err)
			}
			run := decodeSARIF(t, out).Runs[0]
			groups := map[[2]string]bool{}
			for _, f := range rep.Findings {
				groups[[2]string{f.Tool, f.Code}] = true
			}
			if len(run.Results) != len(groups) {
				t.Errorf("%d results for %d (tool, code) groups", len(run.Results), len(groups))
			}
			if got, want := run.AutomationDetails.ID, "mcp-fuzz/ci weather/"; got != want {
				t.Errorf("automationDetails.id = %q, want %q", got, want)
			}
			findings := 0
			for _, res := range run.Results {
				findings += res.Properties.Count
				if len(res.Properties.FindingIDs) != res.Properties.Count {
					t.Errorf("%s/%s: %d finding ids for count %d", res.Properties.Tool, res.RuleID, len(res.Properties.FindingIDs), res.Properties.Count)
				}
				if strings.Contains(res.Message.Text, "\x1b") || strings.Contains(res.Message.Text, "\n") {
					t.Errorf("unescaped message %q", res.Message.Text)
				}
				want := 1
				if res.Properties.Tool == "get_weather" {
					want = 7
				}
				if got := res.Locations[0].PhysicalLocation.Region.StartLine; got != want {
					t.Errorf("%s/%s at line %d, want %d", res.Properties.Tool, res.RuleID, got, want)
				}
			}
			if findings != len(rep.Findings) {
				t.Errorf("results hold %d findings of %d", findings, len(rep.Findings))
			}
			golden(t, out)
		})
	}
}

// A result lists its cases and counts them.
func TestSARIFGroupsCases(t *testing.T) {
	out, err := SARIF(gradedReport(), sarifOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range decodeSARIF(t, out).Runs[0].Results {
		if res.Properties.Tool != "get_weather" || res.Properties.Code != "accepted" {
			continue
		}
		if res.Properties.Count != 2 {
			t.Errorf("count %d, want 2", res.Properties.Count)
		}
		if !strings.HasPrefix(res.Message.Text, "Tool get_weather: Forbidden input accepted (2 findings; cases get_weather/enum-units, get_weather/oversize/city#string). ") {
			t.Errorf("message %q", res.Message.Text)
		}
		return
	}
	t.Fatal("no result for get_weather's accepted findings")
}

// The fingerprint is the identity of (tool, code): another run with other
// cases, messages, lines and category keeps it; another tool or code
// changes it.
func TestSARIFFingerprintStable(t *testing.T) {
	fps := func(rep *report.Report, opts SARIFOptions) map[[2]string]string {
		out, err := SARIF(rep, opts)
		if err != nil {
			t.Fatal(err)
		}
		m := map[[2]string]string{}
		for _, res := range decodeSARIF(t, out).Runs[0].Results {
			m[[2]string{res.Properties.Tool, res.Properties.Code}] = res.PartialFingerprints["primaryLocationLineHash"]
		}
		return m
	}
	a := fps(gradedReport(), sarifOptions)
	rerun := gradedReport()
	for i := range rerun.Findings {
		rerun.Findings[i].CaseID += "-seed2"
		rerun.Findings[i].ID += "-seed2"
		rerun.Findings[i].Message = "reworded"
	}
	b := fps(rerun, SARIFOptions{Location: SARIFLocation{URI: "package.json"}, Category: "other"})
	seen := map[string]bool{}
	for k, fp := range a {
		if b[k] != fp {
			t.Errorf("%v: fingerprint %s changed to %s", k, fp, b[k])
		}
		if seen[fp] {
			t.Errorf("%v: fingerprint %s shared", k, fp)
		}
		seen[fp] = true
	}
	if SARIFFingerprintOf("a", "crash") == SARIFFingerprintOf("b", "crash") || SARIFFingerprintOf("a", "crash") == SARIFFingerprintOf("a", "hang") {
		t.Error("fingerprints collide")
	}
	if SARIFFingerprintOf("a\x00crash", "") == SARIFFingerprintOf("a", "crash") {
		t.Error("fingerprint is ambiguous")
	}
}

// Without a location the log is still valid SARIF, but code scanning would
// refuse it, and the checks say so.
func TestSARIFNoLocation(t *testing.T) {
	out, err := SARIF(gradedReport(), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Schema(out); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Check(out, sarifcheck.Options{}); err == nil || !strings.Contains(err.Error(), "no location") {
		t.Errorf("Check = %v, want a missing location", err)
	}
	// A clean run needs no location.
	out, err = SARIF(ungradedReport(), SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Check(out, sarifcheck.Options{}); err != nil {
		t.Error(err)
	}
}

// The category defaults to the target, never to the server's version (a
// new version would start a new analysis and reopen every alert), and
// stays short and printable.
func TestSARIFCategory(t *testing.T) {
	rep := gradedReport()
	out, err := SARIF(rep, SARIFOptions{Location: SARIFLocation{URI: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decodeSARIF(t, out).Runs[0].AutomationDetails.ID, "mcp-fuzz/"+rep.Target.Command+"/"; got != want {
		t.Errorf("id %q, want %q", got, want)
	}
	long := SARIFCategory(strings.Repeat("x", 500) + "\x1b[31m")
	if len(long) > sarifCategoryMax+len(SARIFCategoryPrefix)+1 || strings.Contains(long, "\x1b") || !strings.HasSuffix(long, "/") {
		t.Errorf("long category %q", long)
	}
	if long != SARIFCategory(strings.Repeat("x", 500)+"\x1b[31m") || long == SARIFCategory(strings.Repeat("x", 501)) {
		t.Error("long categories are not stable and distinct")
	}
	if got := SARIFCategory(""); got != "mcp-fuzz/default/" {
		t.Errorf("empty category %q", got)
	}
}

// Rules carry code scanning's filters: a security tag and security-severity
// for the codes an attacker can cause, problem.severity for the others.
func TestSARIFRuleProperties(t *testing.T) {
	for _, c := range report.Codes() {
		r := sarifRuleFor(c, c.Severity)
		hasSecurity := false
		for _, tag := range r.Properties.Tags {
			hasSecurity = hasSecurity || tag == "security"
		}
		if hasSecurity != (r.Properties.SecuritySeverity != "") {
			t.Errorf("%s: security tag %v, security-severity %q", c.Name, hasSecurity, r.Properties.SecuritySeverity)
		}
		if (r.Properties.ProblemSeverity == "") == (r.Properties.SecuritySeverity == "") {
			t.Errorf("%s: want exactly one of security-severity and problem.severity", c.Name)
		}
	}
	for _, name := range []string{"crash", "hang", "leak", "accepted"} {
		c, _ := report.LookupCode(name)
		if c.SecuritySeverity == "" {
			t.Errorf("%s has no security-severity", name)
		}
	}
}
