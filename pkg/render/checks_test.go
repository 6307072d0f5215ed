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
