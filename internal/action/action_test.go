package action

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

func TestSplitCommand(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestInputsBecomeTheAuditsOptions checks the mapping of every input onto
// the audit's validated options.
func TestInputsBecomeTheAuditsOptions(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "srv"), 0o755); err != nil {
		t.Fatal(err)
	}
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
		"repeat":              "5",
		"fail-under":          "80",
		"fail-on":             "crash, hang\nleak",
		"sarif":               "out/x.sarif",
		"report":              "/abs/r.json",
		"comment":             "Always",
		"comment-key":         "k",
		"github-token":        "t",
		"sequential":          "true",
		"concurrency":         "4",
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
	check("Sequential", cfg.Sequential, true)
	check("Tools", cfg.Tools, []string{"get_*", "list_*"})
	check("SkipTools", cfg.SkipTools, []string{"delete_*"})
	check("Cases", cfg.Cases, -1)
	check("Seed", cfg.Seed, 7)
	check("Timeout", cfg.Timeout, "2.5s")
	check("StartupTimeout", cfg.StartupTimeout, "1m30s")
	check("Repeat", cfg.Repeat, 5)
	check("FailUnder", *gates.FailUnder, 80)
	check("FailOn", gates.FailOn, []string{"crash", "hang", "leak"})
	check("sarif", s.sarif, filepath.Join(ws, "srv", "out", "x.sarif"))
	check("sarif output", relative(ws, s.sarif), "srv/out/x.sarif")
	check("report", s.report, "/abs/r.json")
	check("comment", s.comment, "always")
	check("warnings", len(s.warnings), 0) // every docs/BEHAVIOUR.md#the-github-action input works: none is "not supported yet"

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
	t.Parallel()
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
	t.Parallel()
	// The secret set of docs/BEHAVIOUR.md#targets-and-transports, not every value: DEBUG=1, the short X-Tenant
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

// mcpFuzzBinary builds mcp-fuzz once per test process.
func mcpFuzzBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds mcp-fuzz")
	}
	return fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz")
}

func TestMain(m *testing.M) { fixture.Main(m) }
