package report

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The catalogue is the one list of finding codes: every failing verdict,
// every flag and the era comparison's code is a row, and nothing else is.
func TestCodesCoverEveryFailingVerdictAndFlag(t *testing.T) {
	notFindings := []Verdict{Handled, Rejected, Tolerated, OK, NotRun}
	for _, v := range Verdicts() {
		c, ok := LookupCode(string(v))
		switch {
		case slices.Contains(notFindings, v) && ok:
			t.Errorf("verdict %s is a finding code, but it is not a failure", v)
		case !slices.Contains(notFindings, v) && !ok:
			t.Errorf("verdict %s has no row in the code catalogue", v)
		case ok && c.Flag:
			t.Errorf("verdict %s is marked as a flag", v)
		}
	}
	for _, f := range []string{FlagLeak, FlagSlow, FlagBloated, FlagStderrPanic} {
		if !slices.Contains(Flags(), f) {
			t.Errorf("flag %s is not in Flags()", f)
		}
		if c, ok := LookupCode(f); !ok || !c.Flag {
			t.Errorf("flag %s: row %+v, found %v; want a flag row", f, c, ok)
		}
	}
	for _, c := range Codes() {
		isVerdict, isFlag := slices.Contains(Verdicts(), Verdict(c.Name)), slices.Contains(Flags(), c.Name)
		switch {
		case (c.Era || c.Check) && (isVerdict || isFlag || c.Flag):
			t.Errorf("code %s is an era or check code and also a verdict or a flag", c.Name)
		case !c.Era && !c.Check && !isVerdict && !isFlag:
			t.Errorf("code %s is neither a verdict, a flag, an era code nor a check's", c.Name)
		}
	}
	if c, ok := LookupCode(CodeEraDifference); !ok || !c.Era {
		t.Errorf("%s: row %+v, found %v; want an era row", CodeEraDifference, c, ok)
	}
}

func TestCodesAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range Codes() {
		if c.Title == "" || c.Message == "" || c.Fix == "" || c.FailOn == "" {
			t.Errorf("code %s: empty title, message, fix or --fail-on name: %+v", c.Name, c)
		}
		if c.Severity.Rank() > SeverityInfo.Rank() {
			t.Errorf("code %s: unknown severity %q", c.Name, c.Severity)
		}
		// Names and --fail-on names share one space: "protocol" must not
		// also be some code's name.
		if seen[c.Name] {
			t.Errorf("code %s: name used twice", c.Name)
		}
		if c.FailOn != c.Name && seen[c.FailOn] {
			t.Errorf("code %s: --fail-on name %q used twice", c.Name, c.FailOn)
		}
		seen[c.Name], seen[c.FailOn] = true, true
		if CodeRank(c.Name) != i {
			t.Errorf("CodeRank(%s) = %d, want %d", c.Name, CodeRank(c.Name), i)
		}
		// Reports order one severity's findings by catalogue position, so
		// the catalogue itself goes worst first.
		if i > 0 && Codes()[i-1].Severity.Rank() > c.Severity.Rank() {
			t.Errorf("code %s (%s) listed after a less severe code", c.Name, c.Severity)
		}
	}
	if CodeRank("no_such_code") != len(Codes()) {
		t.Error("an unknown code does not rank last")
	}
}

func TestDescribeCodeOfAnUnknownCode(t *testing.T) {
	d := DescribeCode("from_a_newer_version")
	if d.Title != "from_a_newer_version" || d.Fix == "" {
		t.Errorf("DescribeCode of an unknown code = %+v", d)
	}
	if got := DescribeCode(string(Crash)); got.Title != "Server crashed" || got.Severity != SeverityCritical {
		t.Errorf("DescribeCode(crash) = %+v", got)
	}
}

func TestCodesReturnsACopy(t *testing.T) {
	c := Codes()
	c[0].Severity = SeverityInfo
	if Codes()[0].Severity == SeverityInfo {
		t.Error("Codes exposes its backing array")
	}
}

func TestSeverityRank(t *testing.T) {
	order := []Severity{SeverityCritical, SeverityError, SeverityWarning, SeverityInfo, "other"}
	for i, s := range order {
		if s.Rank() != i {
			t.Errorf("%q.Rank() = %d, want %d", s, s.Rank(), i)
		}
	}
}

func TestVerdictPredicates(t *testing.T) {
	for _, v := range Verdicts() {
		answered := slices.Contains([]Verdict{OK, EmptySuccess, OutputViolation, Errored}, v)
		confirms := slices.Contains([]Verdict{OK, EmptySuccess, OutputViolation}, v)
		failure := slices.Contains([]Verdict{Crash, Hang, ProtocolViolation}, v)
		if v.Answered() != answered || v.Confirms() != confirms || v.Failure() != failure {
			t.Errorf("%s: Answered %v Confirms %v Failure %v; want %v %v %v", v, v.Answered(), v.Confirms(), v.Failure(), answered, confirms, failure)
		}
	}
}

// A security-severity is code scanning's score: a number over 0.0 up to
// 10.0, as text; a CWE is spelled CWE-N.
func TestCodeSecuritySeverity(t *testing.T) {
	for _, c := range Codes() {
		if c.SecuritySeverity != "" {
			v, err := strconv.ParseFloat(c.SecuritySeverity, 64)
			if err != nil || v <= 0 || v > 10 {
				t.Errorf("%s: security-severity %q", c.Name, c.SecuritySeverity)
			}
		}
		if c.CWE != "" {
			if n, ok := strings.CutPrefix(c.CWE, "CWE-"); !ok || n == "" || strings.Trim(n, "0123456789") != "" {
				t.Errorf("%s: CWE %q", c.Name, c.CWE)
			}
		}
	}
}
