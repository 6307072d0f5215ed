package action

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestHostileNames runs the whole Action on a pull request against the
// hostile-names fixture, whose server name, version, tool names and error
// messages carry workflow commands, terminal escapes, @mentions, HTML,
// forged markers and Markdown links, with a hostile comment-key: none of it
// may act in the log, the job summary, the comment or the SARIF file.
func TestHostileNames(t *testing.T) {
	t.Parallel()
	env := prEnv(t)
	env["INPUT_COMMAND"] = fixture.Build(t, "hostile-names")
	env["INPUT_SARIF"] = "r.sarif"
	env["INPUT_REPORT"] = "r.json"
	env["INPUT_TIMEOUT"] = "2"
	env["INPUT_CASES"] = "20"
	env["INPUT_COMMENT-KEY"] = "key\n::error::by-key <!-- mcp-fuzz:end a --> @octocat <img src=x>"
	fake := fakegithub.New(t)
	var out, progress bytes.Buffer
	code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &progress,
		CommentClient: fakeComments(t, fake, "https://api.github.com/")})
	if code != ExitGate {
		t.Errorf("exit %d, want %d (crashes)\n%s", code, ExitGate, out.String())
	}
	// The log: every line the runner reads for workflow commands.
	for name, text := range map[string]string{"stdout": out.String(), "stderr": progress.String()} {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "pwned") && (strings.HasPrefix(strings.TrimSpace(line), "::error::pwned") ||
				strings.HasPrefix(strings.TrimSpace(line), "::warning::pct")) ||
				strings.Contains(line, "::error::by-key") && strings.HasPrefix(line, "::error::by-key") ||
				strings.ContainsAny(line, "\x1b\x07\r") {
				t.Errorf("%s: injected line %q", name, line)
			}
		}
	}
	if !strings.Contains(out.String(), "::error") {
		t.Errorf("no error annotation:\n%s", out.String())
	}

	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	cs := fake.Comments("o", "r", 3)
	if len(cs) != 1 {
		t.Fatalf("%d comments", len(cs))
	}
	for name, md := range map[string]string{"job summary": string(summary), "comment": cs[0].Body} {
		checkMarkdown(t, name, md)
	}
	if strings.Count(cs[0].Body, "<!-- mcp-fuzz:comment -->") != 1 {
		t.Errorf("comment: the marker more than once")
	}

	raw, err := os.ReadFile(filepath.Join(env["GITHUB_WORKSPACE"], "r.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	var sarif struct {
		Runs []struct {
			AutomationDetails struct {
				ID string `json:"id"`
			} `json:"automationDetails"`
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string          `json:"id"`
						Name             string          `json:"name"`
						ShortDescription json.RawMessage `json:"shortDescription"`
						FullDescription  json.RawMessage `json:"fullDescription"`
						Help             json.RawMessage `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct {
					Text     string `json:"text"`
					Markdown string `json:"markdown"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &sarif); err != nil {
		t.Fatal(err)
	}
	ruleID := regexp.MustCompile(`^[A-Za-z0-9._/\-#@:]+$`)
	for _, run := range sarif.Runs {
		// The category is the workflow's comment-key: not the server's.
		if strings.Contains(run.AutomationDetails.ID, "pwned") || strings.ContainsAny(run.AutomationDetails.ID, "\n\r\x1b") {
			t.Errorf("SARIF automationDetails.id %q", run.AutomationDetails.ID)
		}
		for _, r := range run.Tool.Driver.Rules {
			if !ruleID.MatchString(r.ID) {
				t.Errorf("SARIF rule id %q", r.ID)
			}
			for _, m := range []json.RawMessage{r.ShortDescription, r.FullDescription, r.Help} {
				var d struct{ Text, Markdown string }
				_ = json.Unmarshal(m, &d)
				checkMarkdown(t, "SARIF rule markdown", d.Markdown)
				if strings.ContainsAny(d.Text, "\x1b\x07") {
					t.Errorf("SARIF rule text %q", d.Text)
				}
			}
		}
		for _, r := range run.Results {
			if !ruleID.MatchString(r.RuleID) {
				t.Errorf("SARIF result ruleId %q", r.RuleID)
			}
			checkMarkdown(t, "SARIF message markdown", r.Message.Markdown)
			// SARIF reads "[text](target)" in a plain text message as a link.
			if strings.ContainsAny(r.Message.Text, "\x1b\x07") || strings.Contains(r.Message.Text, "[click](https://evil") {
				t.Errorf("SARIF message text %q", r.Message.Text)
			}
		}
	}
}

// checkMarkdown fails when md holds live HTML, an @mention that pings, a
// forged marker, a link or image to the fixture's site, or an escape.
func checkMarkdown(t *testing.T, name, md string) {
	t.Helper()
	md = outsideCode(md)
	for _, bad := range []string{"<img", "<details></details>", "</details></table>", "\x1b", "\x07", "@octocat", "@github/everyone",
		"[click](https://evil", "![t](https://evil", "<!-- mcp-fuzz:section a -->", "<!-- mcp-fuzz:end a -->", "\n::error::pwned"} {
		if i := strings.Index(md, bad); i >= 0 {
			t.Errorf("%s holds %q: …%q…", name, bad, md[max(0, i-80):min(len(md), i+80)])
		}
	}
}

// outsideCode is md less its fenced code blocks (each line's indentation
// kept no deeper than the fence's) and the data lines of comment sections,
// which are HTML comments.
func outsideCode(md string) string {
	var b strings.Builder
	fence, indent := "", ""
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if !strings.HasPrefix(line, indent) && strings.TrimSpace(line) != "" {
				fence = "" // the container ended, and the block with it
				b.WriteString(line + "\n")
			} else if strings.HasPrefix(trim, fence) && strings.Trim(trim, "`") == "" {
				fence = ""
			}
		case strings.HasPrefix(trim, "```"):
			fence = trim[:len(trim)-len(strings.TrimLeft(trim, "`"))]
			indent = line[:len(line)-len(trim)]
		case strings.HasPrefix(line, "<!-- mcp-fuzz:data ") && strings.HasSuffix(line, " -->") && !strings.Contains(line[4:len(line)-4], "-->"):
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
