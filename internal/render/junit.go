package render

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// junitFailures are the verdicts a JUnit test case fails on.
var junitFailures = map[report.Verdict]bool{
	report.Crash:             true,
	report.Hang:              true,
	report.ProtocolViolation: true,
	report.Accepted:          true,
	report.OutputViolation:   true,
}

// junitSkips are the verdicts a JUnit test case is skipped on.
var junitSkips = map[report.Verdict]string{
	report.NotRun:       "not run",
	report.GeneratorGap: "generator gap",
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitRun is the <properties> of every suite of rep: the containment and
// the box's warning; nil without a run.
func junitRun(rep *report.Report) *junitProperties {
	if rep.Run == nil {
		return nil
	}
	p := &junitProperties{Property: []junitProperty{{"containment", escape.XMLLine(containment(rep), 0)}}}
	if rep.Run.Warning != "" {
		p.Property = append(p.Property, junitProperty{"box-warning", escape.XMLLine(rep.Run.Warning, 0)})
	}
	return p
}

type junitSuite struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Errors    int    `xml:"errors,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Time      string `xml:"time,attr"`
	Timestamp string `xml:"timestamp,attr,omitempty"`
	// Properties say how the server was contained (every suite, so that
	// a tool looked at alone says it too).
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// Lengths, in runes, that JUnit text is cut to.
const (
	junitMessageMax = 500
	junitBodyMax    = 20000
)

// JUnit renders rep as JUnit XML: one <testsuite> per tool and one
// <testcase> per case (name = case id, classname = tool, time in seconds).
// A case fails on crash, hang, protocol_violation, accepted and
// output_violation, on a leak flag, and when an --era both run judged it
// differently in the other era (an era_difference finding, whose message
// the failure's adds); the failure message is the verdict and detail, its
// body the finding's reproducer (or the arguments). Cases
// not run and generator gaps are skipped, as is the single test case of a
// tool that was not tested, with the reason. The <testsuites> of a static
// audit (--no-calls) is named with [report.StaticLabel].
func JUnit(rep *report.Report) ([]byte, error) {
	reproducers := map[string]report.Reproducer{}
	eraDiffs := map[string]string{} // the era_difference finding's message
	for _, f := range rep.Findings {
		key := f.Tool + "\x00" + f.CaseID
		if _, ok := reproducers[key]; !ok {
			reproducers[key] = f.Reproducer
		}
		if f.Code == report.CodeEraDifference {
			eraDiffs[key] = f.Message
		}
	}
	// Attributes are one line; bodies keep their lines. Control characters
	// are shown as \uXXXX.
	line, clean := escape.XMLLine, escape.XMLClean
	root := junitSuites{Name: "mcp-fuzz", Time: seconds(float64(rep.DurationMs))}
	if rep.Static {
		// Every tool's test case is skipped: the suite's name says why.
		root.Name = "mcp-fuzz: " + report.StaticLabel
	}
	for _, t := range rep.Tools {
		tool := line(t.Name, nameMax)
		suite := junitSuite{Name: tool, Timestamp: rep.StartedAt.UTC().Format("2006-01-02T15:04:05"), Properties: junitRun(rep)}
		if rep.StartedAt.IsZero() {
			suite.Timestamp = ""
		}
		if !t.Tested {
			suite.Cases = []junitCase{{
				Name: tool, Classname: tool, Time: seconds(0),
				Skipped: &junitMessage{Message: line("not tested: "+orText(t.SkipReason, "no reason recorded"), junitMessageMax)},
			}}
			suite.Tests, suite.Skipped, suite.Time = 1, 1, seconds(0)
			root.Suites = append(root.Suites, suite)
			root.Tests++
			root.Skipped++
			continue
		}
		var total float64
		for _, c := range t.Cases {
			total += c.DurationMs
			jc := junitCase{Name: line(c.ID, nameMax), Classname: tool, Time: seconds(c.DurationMs)}
			var fails []string
			if junitFailures[c.Verdict] {
				fails = append(fails, string(c.Verdict))
			}
			if c.HasFlag(report.FlagLeak) {
				fails = append(fails, report.FlagLeak)
			}
			eraDiff, differs := eraDiffs[t.Name+"\x00"+c.ID]
			if differs {
				fails = append(fails, report.CodeEraDifference)
			}
			switch {
			case len(fails) > 0:
				msg := strings.Join(fails, ", ")
				switch {
				case differs && len(fails) == 1:
					// The case's own verdict is no failure: its detail
					// would not say what went wrong.
					msg += ": " + eraDiff
				case c.Detail != "":
					msg += ": " + c.Detail
				}
				if differs && len(fails) > 1 {
					msg += "; " + eraDiff
				}
				jc.Failure = &junitMessage{
					Message: line(msg, junitMessageMax),
					Type:    fails[0],
					Body:    clean(junitBody(c, reproducers[t.Name+"\x00"+c.ID]), junitBodyMax),
				}
				suite.Failures++
			case junitSkips[c.Verdict] != "":
				msg := junitSkips[c.Verdict]
				if c.Detail != "" {
					msg += ": " + c.Detail
				}
				jc.Skipped = &junitMessage{Message: line(msg, junitMessageMax)}
				suite.Skipped++
			}
			jc.SystemOut = "verdict: " + line(string(c.Verdict), 40)
			if len(c.Flags) > 0 {
				jc.SystemOut += "\nflags: " + line(strings.Join(c.Flags, ", "), junitMessageMax)
			}
			if tt := timingText(c); tt != "" {
				jc.SystemOut += "\ntiming: " + line(tt, junitMessageMax)
			}
			suite.Cases = append(suite.Cases, jc)
		}
		suite.Tests = len(suite.Cases)
		suite.Time = seconds(total)
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		root.Skipped += suite.Skipped
		root.Suites = append(root.Suites, suite)
	}
	if suite, ok := junitServerSuite(rep); ok {
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		root.Suites = append(root.Suites, suite)
	}
	out, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding junit xml: %w", err)
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// junitServerSuite is the "server" suite: one failed test case per finding
// of no case (protocol violations outside any tool call), named by the
// finding's id; ok is false when there is none.
func junitServerSuite(rep *report.Report) (junitSuite, bool) {
	line, clean := escape.XMLLine, escape.XMLClean
	suite := junitSuite{Name: "server", Time: seconds(0)}
	for _, f := range rep.Findings {
		if f.CaseID != "" {
			continue
		}
		suite.Cases = append(suite.Cases, junitCase{
			Name: line(f.ID, nameMax), Classname: "server", Time: seconds(0),
			Failure: &junitMessage{
				Message: line(f.Code+": "+f.Message, junitMessageMax),
				Type:    line(f.Code, 40),
				Body:    clean(f.Reproducer.Shell, junitBodyMax),
			},
		})
		suite.Failures++
	}
	suite.Tests = len(suite.Cases)
	return suite, suite.Tests > 0
}

// junitBody is the failure body: the reproducer, or the arguments when the
// report has no finding for the case.
func junitBody(c report.Case, r report.Reproducer) string {
	var b strings.Builder
	if r.JSONRPC != "" {
		b.WriteString("JSON-RPC:\n" + r.JSONRPC + "\n")
	}
	if r.Shell != "" {
		b.WriteString("Shell:\n" + r.Shell + "\n")
	}
	if note := placeholderNote(r.Shell); note != "" {
		b.WriteString(note + "\n")
	}
	if r.Generator != "" {
		b.WriteString("Generator (prints the tools/call line):\n" + r.Generator + "\n")
	}
	if b.Len() == 0 {
		b.WriteString("arguments: " + argumentsText(c) + "\n")
	}
	if c.Crash != nil && c.Crash.Stderr != "" {
		b.WriteString("stderr tail:\n" + c.Crash.Stderr + "\n")
	}
	return b.String()
}
