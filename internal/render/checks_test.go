package render

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestMarkdownHostileIssuer: an authorization server's issuer is server
// text that reaches a check's detail (the engine redacts and bounds it);
// the protocol checks table escapes it, one row per check, whatever it
// holds.
func TestMarkdownHostileIssuer(t *testing.T) {
	rep := gradedReport()
	rep.Server.Era = "modern"
	detail := "the authorization server is on another origin (https://as.example/" + hostile + "); mcp-fuzz sends nothing to other origins"
	rep.Checks = []report.Check{
		{ID: "compliance/auth-no-dcr", Group: "compliance", Title: "t", Status: report.CheckSkip, Detail: detail},
		{ID: "compliance/auth-iss", Group: "compliance", Title: "t", Status: report.CheckFail, Code: report.CodeAuthMetadata,
			Expected: "issuer equal to " + hostile, Detail: "the metadata of " + hostile + ": authorization_response_iss_parameter_supported is not true (RFC 9207)",
			HTTP: "GET /.well-known/oauth-authorization-server/" + hostile},
	}
	rep.Normalize()
	md := Markdown(rep)
	checkMarkdownSafe(t, md)
	_, table, ok := strings.Cut(md, "### Protocol checks")
	if !ok {
		t.Fatalf("no protocol checks section:\n%s", md)
	}
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| compliance/") {
			rows++
			if n := unescapedPipes(line); n != 5 {
				t.Errorf("row with %d cells: %s", n-1, line)
			}
		}
		if strings.HasPrefix(line, "second line") {
			t.Errorf("the issuer's newline broke the table: %q", line)
		}
		if line == "" && rows > 0 {
			break
		}
	}
	if rows != 2 {
		t.Errorf("%d check rows:\n%s", rows, table)
	}
}

// TestLifecycleSection: the lifecycle checks get their own section, apart
// from the protocol checks' count, in the terminal and in Markdown; their
// details (server text) are escaped; "0 groups detected" is said as is.
func TestLifecycleSection(t *testing.T) {
	rep := gradedReport()
	rep.Server.Era = "legacy"
	rep.Lifecycle = &report.Lifecycle{Groups: 1, Summary: "1 group detected: note (create_note, get_note, delete_note)"}
	rep.Checks = []report.Check{
		{ID: "lifecycle/note", Group: report.CheckGroupLifecycle, Status: report.CheckFail, Code: report.CodeStaleRead,
			Detail: "get_note after the delete still answered with it: " + hostile},
		{ID: "lifecycle/tag", Group: report.CheckGroupLifecycle, Status: report.CheckSkip, Detail: "ambiguous: 2 create tools for tag (add_tag, create_tag)"},
	}
	rep.Normalize()
	md := Markdown(rep)
	checkMarkdownSafe(t, md)
	for _, want := range []string{
		"### Lifecycle checks\n\n--sequential: 1 group detected: note (create\\_note, get\\_note, delete\\_note).",
		"| lifecycle/note | fail (stale\\_read) |",
		"| lifecycle/tag | skip | ambiguous: 2 create tools for tag (add\\_tag, create\\_tag) |",
		// Not counted as protocol checks: a legacy server has none.
		"protocol checks: none, the server was audited in the 2025 era",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	text := Terminal(rep, false)
	for _, want := range []string{
		"lifecycle checks (--sequential): 1 group detected: note (create_note, get_note, delete_note) — 0 passed, 1 failed, 1 skipped",
		"    fail (stale_read) lifecycle/note: ",
		"    skipped lifecycle/tag: ambiguous",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal summary lacks %q:\n%s", want, text)
		}
	}

	rep.Lifecycle = &report.Lifecycle{Summary: "0 groups detected: no tool name says create/add/insert/new or delete/remove/destroy a resource, so there is no lifecycle to check"}
	rep.Checks = nil
	if md := Markdown(rep); !strings.Contains(md, "### Lifecycle checks\n\n--sequential: 0 groups detected: ") {
		t.Errorf("Markdown does not say 0 groups:\n%s", md)
	}
}
