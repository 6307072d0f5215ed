package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

const boundsToken = "sk-Abc12345XYZ9q7"

func runBounds(t *testing.T, tools ...string) *report.Report {
	t.Helper()
	return runFixture(t, "hostile-bounds", func(c *Config) {
		c.Env = []string{"API_TOKEN=" + boundsToken}
		c.Tools = tools
		c.Cases = 4
		c.Timeout = 3 * time.Second
	})
}

// A secret the server writes as JSON \u escapes is a secret all the same:
// in the head of an oversize answer and in a malformed line's excerpt.
func TestEscapedSecretsAreRedacted(t *testing.T) {
	parallel(t)
	rep := runBounds(t, "escaped_secret_big", "escaped_secret_line")
	out, err := render.JSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	escapedPrefix := `\u0073\u006b\u002d` // "sk-"
	for _, leak := range []string{boundsToken, boundsToken[:8], escapedPrefix, strings.ReplaceAll(escapedPrefix, `\`, `\\`)} {
		if strings.Contains(string(out), leak) {
			t.Errorf("the report contains %q", leak)
		}
	}
	flagged := map[string]bool{}
	for _, c := range cases(rep) {
		if slices.Contains(c.Flags, report.FlagLeak) {
			flagged[strings.Split(c.ID, "/")[0]] = true
		}
	}
	for _, tool := range []string{"escaped_secret_big", "escaped_secret_line"} {
		if !flagged[tool] {
			t.Errorf("the escaped secret sent by %s raised no leak flag", tool)
		}
	}
}

// A flood of stdout garbage is counted, not kept: each case describes the
// first few lines and how many more there were.
func TestGarbageFloodIsBounded(t *testing.T) {
	parallel(t)
	rep := runBounds(t, "garbage_flood")
	pv := withVerdict(rep, report.ProtocolViolation)
	if len(pv) == 0 {
		t.Fatal("no protocol violation for 20,000 garbage lines")
	}
	for _, c := range pv {
		if len(c.Detail) > 4096 {
			t.Errorf("%s: detail of %d bytes", c.ID, len(c.Detail))
		}
		if !strings.Contains(c.Detail, "more") {
			t.Errorf("%s: detail does not count the rest: %.200q", c.ID, c.Detail)
		}
	}
	if b, _ := json.Marshal(rep); len(b) > 256<<10 {
		t.Errorf("a report of %d bytes", len(b))
	}
}

// A tool name of 2,000 bytes is not called, and the report stores it cut.
func TestLongToolNamesAreNotCalled(t *testing.T) {
	parallel(t)
	rep := runBounds(t, "n*")
	tl := rep.Tools[len(rep.Tools)-1]
	if !strings.HasPrefix(tl.Name, "nnnn") || tl.Tested {
		t.Fatalf("the long-named tool: %+v", tl)
	}
	if !strings.Contains(tl.SkipReason, "2000 bytes") || len(tl.Name) > report.MaxStoredToolName+64 {
		t.Errorf("skip reason %q, stored name of %d bytes", tl.SkipReason, len(tl.Name))
	}
}
