package action

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"npx -y @scope/server@1.2.3", []string{"npx", "-y", "@scope/server@1.2.3"}},
		{`uvx  mcp-server-fetch --arg "two words" 'single $HOME' x\ y`, []string{"uvx", "mcp-server-fetch", "--arg", "two words", "single $HOME", "x y"}},
		{`a "q\"uote" "back\\slash" "keep\n"`, []string{"a", `q"uote`, `back\slash`, `keep\n`}},
		{"a\n  b\tc", []string{"a", "b", "c"}},
		{`"" x`, []string{"", "x"}},
		{"", nil},
	} {
		got, err := splitCommand(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`a "b`, `a 'b`, `a\`} {
		if _, err := splitCommand(bad); err == nil {
			t.Errorf("splitCommand(%q): no error", bad)
		}
	}
}

// TestEveryInputIsRead checks that readInputs asks for every input of
// [Inputs] and for nothing else, so action.yml (compared with [Inputs] in
// internal/imagetest) and the code agree.
func TestEveryInputIsRead(t *testing.T) {
	asked := map[string]bool{}
	get := func(name string) string {
		asked[name] = true
		return map[string]string{"command": "server --stdio"}[name]
	}
	if _, err := readInputs(get, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for _, n := range Inputs {
		if !asked[n] {
			t.Errorf("input %s is never read", n)
		}
		delete(asked, n)
	}
	for n := range asked {
		t.Errorf("input %s is read but not in Inputs (nor action.yml)", n)
	}
}

// TestInputsBecomeTheCLIsConfig checks the mapping of every input onto the
// command line's validated configuration.
func TestInputsBecomeTheCLIsConfig(t *testing.T) {
	ws := t.TempDir()
	in := map[string]string{
		"command":             `node "my server.js" --stdio`,
		"env":                 "A=1\n\nB=two words\n",
		"pass-env":            "HOME, USER\nLANG",
		"working-directory":   "srv",
		"include-destructive": "true",
		"tools":               "get_*\nlist_*",
		"skip-tools":          "delete_*",
		"cases":               "0",
		"seed":                "7",
		"timeout":             "2.5",
		"startup-timeout":     "90s",
		"fail-under":          "80",
		"fail-on":             "crash, hang\nleak",
		"sarif":               "out/x.sarif",
		"report":              "/abs/r.json",
		"comment":             "Always",
		"comment-key":         "k",
		"github-token":        "t",
		"sequential":          "true",
	}
	s, err := readInputs(func(n string) string { return in[n] }, ws)
	if err != nil {
		t.Fatal(err)
	}
	o, err := audit.Build(s.audit, inputNames, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("%v (settings %+v)", err, s.audit)
	}
	cfg, gates := o.Engine, o.Gates
	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("Command", cfg.Command, []string{"node", "my server.js", "--stdio"})
	check("Cwd", cfg.Cwd, filepath.Join(ws, "srv"))
	check("Env", cfg.Env, []string{"A=1", "B=two words"})
	check("PassEnv", cfg.PassEnv, []string{"HOME", "USER", "LANG"})
	check("IncludeDestructive", cfg.IncludeDestructive, true)
	check("Tools", cfg.Tools, []string{"get_*", "list_*"})
	check("SkipTools", cfg.SkipTools, []string{"delete_*"})
	check("Cases", cfg.Cases, -1)
	check("Seed", cfg.Seed, 7)
	check("Timeout", cfg.Timeout, "2.5s")
	check("StartupTimeout", cfg.StartupTimeout, "1m30s")
	check("FailUnder", *gates.FailUnder, 80)
	check("FailOn", gates.FailOn, []string{"crash", "hang", "leak"})
	check("sarif", s.sarif, filepath.Join(ws, "srv", "out", "x.sarif"))
	check("sarif output", relative(ws, s.sarif), "srv/out/x.sarif")
	check("report", s.report, "/abs/r.json")
	check("comment", s.comment, "always")
	check("warnings", len(s.warnings), 1)

	// url and headers.
	in = map[string]string{"url": "https://example.com/mcp", "headers": "Authorization: Bearer x\nX-A: b"}
	s, err = readInputs(func(n string) string { return in[n] }, ws)
	if err != nil {
		t.Fatal(err)
	}
	o, err = audit.Build(s.audit, inputNames, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg = o.Engine
	check("URL", cfg.URL, "https://example.com/mcp")
	check("Headers", cfg.Headers, []string{"Authorization: Bearer x", "X-A: b"})
	check("Cwd for url", cfg.Cwd, "")
}

func TestBadInputs(t *testing.T) {
	for name, in := range map[string]map[string]string{
		"include-destructive": {"command": "x", "include-destructive": "yes please"},
		"comment":             {"command": "x", "comment": "never"},
		"quote":               {"command": `x "y`},
	} {
		if _, err := readInputs(func(n string) string { return in[n] }, "/ws"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestSecretsOf(t *testing.T) {
	// The secret set of SPEC §3, not every value: DEBUG=1, the short X-Tenant
	// and the plain PATH-like value are not secrets, so they are not masked
	// (masking "1" would hide every 1 in the log and drop outputs).
	in := map[string]string{
		"headers":      "Authorization: Bearer abc-header-token\nX-Tenant: test\nbroken",
		"env":          "API_TOKEN=env-canary-value\nDEBUG=1\nFEATURE=true\nDATA=/srv/data\nEMPTY=",
		"pass-env":     "P",
		"secrets":      "VENDOR_ID",
		"github-token": "ghs_actionTokenValue",
	}
	env := map[string]string{"P": "pv", "MCP_FUZZ_BEARER": "bearer-canary-value", "VENDOR_ID": "vendor-0042"}
	got := secretsOf(func(n string) string { return in[n] }, func(n string) string { return env[n] })
	want := []string{"bearer-canary-value", "env-canary-value", "Bearer abc-header-token", "abc-header-token", "vendor-0042", "ghs_actionTokenValue"}
	if !slices.Equal(got, want) {
		t.Errorf("secrets %q, want %q", got, want)
	}
}

func TestWorst(t *testing.T) {
	var fs []report.Finding
	for i := 0; i < 8; i++ {
		fs = append(fs, report.Finding{ID: fmt.Sprint("w", i), Severity: "warning"}, report.Finding{ID: fmt.Sprint("i", i), Severity: "info"})
	}
	fs = append(fs, report.Finding{ID: "e", Severity: "error"}, report.Finding{ID: "c", Severity: "critical"})
	got := worst(fs, MaxAnnotations)
	var ids []string
	for _, f := range got {
		ids = append(ids, f.ID)
	}
	want := []string{"c", "e", "w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"}
	if !slices.Equal(ids, want) {
		t.Errorf("worst = %v, want %v", ids, want)
	}
}

type fakeCommenter struct {
	calls []Section
	prs   []PullRequest
	err   error
}

func (f *fakeCommenter) Upsert(_ context.Context, pr PullRequest, s Section) (string, error) {
	f.calls = append(f.calls, s)
	f.prs = append(f.prs, pr)
	return "created", f.err
}

// runDemo runs the action in-process against the demo server (this test
// binary cannot serve it, so the mcp-fuzz binary is built once).
func runDemo(t *testing.T, extra map[string]string, c Commenter) (int, string) {
	return runDemoAPI(t, extra, c, "https://api.github.com/")
}

func runDemoAPI(t *testing.T, extra map[string]string, c Commenter, wantAPI string) (int, string) {
	t.Helper()
	bin := mcpFuzzBinary(t)
	ws := t.TempDir()
	event := filepath.Join(ws, "event.json")
	os.WriteFile(event, []byte(`{"pull_request":{"number":3}}`), 0o644)
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "o"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "s"),
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "o/r", "GITHUB_JOB": "fuzz",
		"INPUT_COMMAND": bin + " demo-server", "INPUT_TOOLS": "lookup_user,get_weather", "INPUT_TIMEOUT": "1", "INPUT_GITHUB-TOKEN": "tok",
		"PATH": os.Getenv("PATH"),
	}
	for k, v := range extra {
		env[k] = v
	}
	var out bytes.Buffer
	code := Run(context.Background(), Env{
		Getenv: func(k string) string { return env[k] }, Stdout: &out,
		NewCommenter: func(apiURL, token string, _ *http.Client) Commenter {
			if apiURL != wantAPI || token != "tok" {
				t.Errorf("commenter for %s with token %q", apiURL, token)
			}
			return c
		},
	})
	return code, out.String()
}

// mcpFuzzBinary builds mcp-fuzz once per test process.
func mcpFuzzBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds mcp-fuzz")
	}
	return fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz")
}

func TestMain(m *testing.M) { fixture.Main(m) }

func TestCommentModes(t *testing.T) {
	t.Run("auto on a pull request", func(t *testing.T) {
		c := &fakeCommenter{}
		code, out := runDemo(t, nil, c)
		if code != 0 || len(c.calls) != 1 {
			t.Fatalf("exit %d, %d upserts\n%s", code, len(c.calls), out)
		}
		pr, s := c.prs[0], c.calls[0]
		if pr.Owner != "o" || pr.Repo != "r" || pr.Number != 3 || s.Report == nil {
			t.Errorf("upsert to %+v", pr)
		}
		if !strings.HasPrefix(s.Key, "fuzz ") || s.Target == "" || !strings.Contains(s.Key, s.Target) {
			t.Errorf("section key %q target %q: want the job name plus the target", s.Key, s.Target)
		}
	})
	t.Run("comment-key", func(t *testing.T) {
		c := &fakeCommenter{}
		runDemo(t, map[string]string{"INPUT_COMMENT-KEY": "mine"}, c)
		if len(c.calls) != 1 || c.calls[0].Key != "mine" {
			t.Errorf("calls %+v", c.calls)
		}
	})
	t.Run("off", func(t *testing.T) {
		c := &fakeCommenter{}
		runDemo(t, map[string]string{"INPUT_COMMENT": "off"}, c)
		if len(c.calls) != 0 {
			t.Errorf("commented with comment: off")
		}
	})
	t.Run("push", func(t *testing.T) {
		c := &fakeCommenter{}
		code, out := runDemo(t, map[string]string{"GITHUB_EVENT_NAME": "push", "INPUT_COMMENT": "always"}, c)
		if code != 0 || len(c.calls) != 0 || !strings.Contains(out, "::notice::") || !strings.Contains(out, "no pull request") {
			t.Errorf("exit %d, %d upserts\n%s", code, len(c.calls), out)
		}
	})
	t.Run("GHES API URL", func(t *testing.T) {
		c := &fakeCommenter{}
		runDemoAPI(t, map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}, c, "https://ghe.example.com/api/v3/")
		if len(c.calls) != 1 {
			t.Errorf("%d upserts", len(c.calls))
		}
	})
	t.Run("no access", func(t *testing.T) {
		c := &fakeCommenter{err: fmt.Errorf("403: %w", ErrNoAccess)}
		code, out := runDemo(t, nil, c)
		if code != 0 || !strings.Contains(out, "::notice::mcp-fuzz: no permission to comment") {
			t.Errorf("exit %d\n%s", code, out)
		}
	})
	t.Run("other failure", func(t *testing.T) {
		c := &fakeCommenter{err: fmt.Errorf("boom")}
		code, out := runDemo(t, map[string]string{"INPUT_FAIL-UNDER": "100"}, c)
		if code != ExitGate || !strings.Contains(out, "::warning::mcp-fuzz: commenting on pull request #3 failed: boom") {
			t.Errorf("exit %d\n%s", code, out)
		}
	})
}
