package repro

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Bounds on what a finding carries, so that findings stay small whatever the
// case: a reproducer longer than maxCallLine is an `mcp-fuzz replay` command
// instead, and a message is cut at maxFindingMessage bytes.
const (
	maxCallLine       = 4096
	maxFindingMessage = 2048
)

// Findings lists one finding per failing case verdict and per flag of rep,
// one for the server's stray violations and one per failed check, worst
// first, then by tool and case order.
func Findings(rep *report.Report, t Target) []report.Finding {
	out := []report.Finding{}
	for _, tl := range rep.Tools {
		for _, c := range tl.Cases {
			if code, ok := report.LookupCode(string(c.Verdict)); ok && !code.Flag && !code.Check {
				out = append(out, newFinding(rep, t, tl.Name, c, code))
			}
			for _, f := range c.Flags {
				if code, ok := report.LookupCode(f); ok && code.Flag {
					out = append(out, newFinding(rep, t, tl.Name, c, code))
				}
			}
		}
	}
	if rep.ServerViolationCount > 0 {
		out = append(out, serverFinding(rep, t))
	}
	out = append(out, CheckFindings(rep, t)...)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Severity.Rank() < out[j].Severity.Rank()
	})
	return out
}

func newFinding(rep *report.Report, t Target, toolName string, c report.Case, code report.Code) report.Finding {
	msg := code.Message
	if c.Crash != nil && c.Crash.How != "" {
		msg += " (" + strings.ReplaceAll(c.Crash.How, "_", " ") + ")"
	}
	detail := c.Detail
	if code.Name == report.FlagSlow || code.Name == report.FlagBloated {
		// The flag's own part of the detail: its message already says
		// what the flag is.
		if part, ok := flagDetail(detail, code.Name); ok {
			detail = part
		}
	}
	if code.Exploit {
		// The evidence alone: the message says what the flaw is, and
		// the verdict of a payload the schema allows says nothing more.
		if _, rest, ok := strings.Cut(detail, code.Name+" "+report.ProvedMarker); ok {
			detail, _, _ = strings.Cut(rest, "; ")
		}
	}
	if detail != "" {
		msg += ": " + detail
	}
	if len(msg) > maxFindingMessage {
		msg = textcut.UTF8(msg, maxFindingMessage) + "… (see the case's detail)"
	}
	return report.Finding{
		ID:         c.ID + "#" + code.Name,
		Severity:   code.Severity,
		Code:       code.Name,
		Tool:       toolName,
		CaseID:     c.ID,
		Message:    msg,
		Reproducer: Case(rep, t, toolName, c),
	}
}

// flagDetail is the part of a case's detail that the performance flags
// wrote for flag ("p50 812 ms over 3 runs, above --slow-ms 5000"), so that
// a finding of the flag does not repeat its name ("the valid call is slow:
// slow: …"); ok is false when there is none. Slow is written before
// bloated, each as "; flag: text" at the end of the detail.
func flagDetail(detail, flag string) (string, bool) {
	marker := flag + ": "
	i := strings.LastIndex(detail, marker)
	if i < 0 || i > 0 && !strings.HasSuffix(detail[:i], "; ") {
		return "", false
	}
	rest := detail[i+len(marker):]
	if flag == report.FlagSlow {
		if j := strings.Index(rest, "; "+report.FlagBloated+": "); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest, true
}

// serverFindingID is the stable id of the finding of the server's stray
// violations, so that baselines and expected findings can name it.
func serverFindingID(transport string) string {
	if transport == "stdio" {
		return "server/stdout#" + string(report.ProtocolViolation)
	}
	return "server/wire#" + string(report.ProtocolViolation)
}

// serverFinding is the one finding of the server's stray violations: a
// protocol violation of no tool and no case, with a reproducer that shows
// the server's first output lines.
func serverFinding(rep *report.Report, t Target) report.Finding {
	code, _ := report.LookupCode(string(report.ProtocolViolation))
	parts := make([]string, 0, len(rep.ServerViolations)+1)
	for _, v := range rep.ServerViolations {
		parts = append(parts, v.When+": "+v.Excerpt)
	}
	if more := rep.ServerViolationCount - len(rep.ServerViolations); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	msg := fmt.Sprintf("%s outside any tool call (%s): %s", code.Message,
		words.Plural(rep.ServerViolationCount, "violation", "violations"), strings.Join(parts, "; "))
	if len(msg) > maxFindingMessage {
		msg = textcut.UTF8(msg, maxFindingMessage) + "… (see serverViolations)"
	}
	return report.Finding{
		ID:         serverFindingID(rep.Target.Transport),
		Severity:   code.Severity,
		Code:       code.Name,
		Message:    msg,
		Reproducer: Startup(rep, t),
	}
}

// CheckFindings are the findings of the failed checks of rep.
func CheckFindings(rep *report.Report, t Target) []report.Finding {
	var out []report.Finding
	for _, c := range rep.Checks {
		if c.Status != report.CheckFail {
			continue
		}
		code := report.DescribeCode(c.Code)
		if c.Group == report.CheckGroupLifecycle {
			out = append(out, lifecycleFinding(rep, t, c, code))
			continue
		}
		// The check's id names what was tested; the finding's id carries it
		// too (for expected: and baselines).
		// Judged from the audit's answers: the detail says what they
		// showed.
		rest := ": " + c.Detail
		if len(c.Request) > 0 || c.HTTP != "" {
			rest = "; expected " + cmp.Or(c.Expected, "a refusal") + ", got: " + c.Detail
		}
		msg := checkMessage(c, code, rest)
		f := report.Finding{
			ID:         "protocol/" + c.ID + "#" + c.Code,
			Severity:   code.Severity,
			Code:       c.Code,
			Message:    msg,
			Reproducer: Check(rep, t, c),
		}
		if c.Group == report.CheckGroupConcurrency {
			f.ID, f.Tool, f.Reproducer = c.ID+"#"+c.Code, c.Tool, reproduceConcurrent(rep, t, c)
		}
		out = append(out, f)
	}
	return out
}

// checkMessage is the message of a failed check's finding: the code's
// message, the check's id (and how the server crashed), then rest; cut at
// maxFindingMessage.
func checkMessage(c report.Check, code report.Code, rest string) string {
	msg := code.Message + " (" + c.ID
	if c.Crash != nil && c.Crash.How != "" {
		msg += ", " + c.Crash.How
	}
	msg += ")" + rest
	if len(msg) > maxFindingMessage {
		msg = textcut.UTF8(msg, maxFindingMessage) + "… (see the check's detail)"
	}
	return msg
}
