package imagetest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/action"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

const secret = "s3cr3t-value"

// TestMain gives the tests a build directory, removed when they end.
func TestMain(m *testing.M) { fixture.Main(m) }

// buildBinaries builds the two binaries of the image, once, into one
// directory under the names the Dockerfile gives them, and returns it.
func buildBinaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	fixture.Program(t, "./cmd/action", "mcp-fuzz-action")
	return filepath.Dir(fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz"))
}

type result struct {
	code           int
	stdout, stderr string
}

// entrypoint runs entrypoint.sh (through its #! line, as the image's
// ENTRYPOINT does) with exactly env (plus PATH with bin first) and args.
func entrypoint(t *testing.T, bin, dir string, env map[string]string, args ...string) result {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(root, "entrypoint.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "MCP_FUZZ_BIN_DIR=" + bin}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// parseOutputs reads a GITHUB_OUTPUT file: name<<DELIMITER, value lines,
// DELIMITER (or name=value).
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("GITHUB_OUTPUT: %s: no closing %s", name, delim)
			}
			out[name] = strings.Join(val, "\n")
		} else if name, val, ok := strings.Cut(lines[i], "="); ok {
			out[name] = val
		} else if lines[i] != "" {
			t.Fatalf("GITHUB_OUTPUT: bad line %q", lines[i])
		}
	}
	return out
}

// actionsEnv is what the runner gives a Docker action, for a pull_request
// event on PR 7 of o/r.
func actionsEnv(t *testing.T, ws, apiURL string) map[string]string {
	t.Helper()
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":7,"pull_request":{"number":7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files := t.TempDir()
	return map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_OUTPUT":       filepath.Join(files, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(files, "summary"),
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   event,
		"GITHUB_REPOSITORY":   "o/r",
		"GITHUB_API_URL":      apiURL,
		"GITHUB_WORKSPACE":    ws,
		"GITHUB_JOB":          "fuzz",
		"INPUT_COMMAND":       "mcp-fuzz demo-server",
		"INPUT_TIMEOUT":       "1",
		"INPUT_TOOLS":         "lookup_user,get_weather",
		"INPUT_SARIF":         "out.sarif",
		"INPUT_REPORT":        "reports/mcp-fuzz.json",
		"INPUT_ENV":           "API_TOKEN=" + secret,
		"INPUT_GITHUB-TOKEN":  "ghs-token-value",
		"INPUT_COMMENT":       "auto",
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkMasks checks that the secrets are masked before any other line, and
// appear nowhere else.
func checkMasks(t *testing.T, stdout string, others ...string) {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	masked := map[string]bool{}
	for i, l := range lines {
		v, ok := strings.CutPrefix(l, "::add-mask::")
		if !ok {
			if len(masked) == 0 {
				t.Errorf("stdout line %d %q comes before any ::add-mask::", i+1, l)
			}
			for _, rest := range lines[i:] {
				if strings.HasPrefix(rest, "::add-mask::") {
					t.Errorf("::add-mask:: after other output: %q", rest)
				}
			}
			break
		}
		masked[v] = true
	}
	for _, s := range []string{secret, "ghs-token-value"} {
		if !masked[s] {
			t.Errorf("%q is not masked; masks: %v", s, masked)
		}
		if n := strings.Count(stdout, s); n != 1 {
			t.Errorf("%q appears %d times in stdout, want only its ::add-mask:: line", s, n)
		}
		for _, o := range others {
			if strings.Contains(o, s) {
				t.Errorf("%q leaked:\n%s", s, o)
			}
		}
	}
}

func TestActionInActions(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	gh := fakegithub.New(t)
	ws := t.TempDir()

	// Run 1: the gate passes (the demo scores in the 80s with these tools).
	env := actionsEnv(t, ws, gh.URL)
	env["INPUT_FAIL-UNDER"] = "50"
	res := entrypoint(t, bin, ws, env)
	if res.code != 0 {
		t.Fatalf("passing gate: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	outputsText := read(t, env["GITHUB_OUTPUT"])
	summary := read(t, env["GITHUB_STEP_SUMMARY"])
	checkMasks(t, res.stdout, res.stderr, summary, outputsText)
	outputs := parseOutputs(t, outputsText)
	t.Logf("outputs: %v; summary %d bytes", outputs, len(summary))
	for _, name := range action.Outputs {
		if _, ok := outputs[name]; !ok {
			t.Errorf("output %s not set; outputs: %v", name, outputs)
		}
	}
	if outputs["passed"] != "true" || outputs["score"] == "" || outputs["grade"] == "" ||
		outputs["sarif-path"] != "out.sarif" || outputs["report-path"] != "reports/mcp-fuzz.json" ||
		!strings.HasPrefix(outputs["badge-url"], "https://img.shields.io/badge/") || outputs["crashes"] == "" || outputs["findings"] == "" {
		t.Errorf("outputs: %v", outputs)
	}
	if !strings.HasPrefix(summary, "## mcp-fuzz") || len(summary) >= 1<<20 {
		t.Errorf("summary (%d bytes) does not start with the report header:\n%.300s", len(summary), summary)
	}
	for _, f := range []string{"out.sarif", "reports/mcp-fuzz.json"} {
		if st, err := os.Stat(filepath.Join(ws, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if e, w := strings.Count(res.stdout, "\n::error"), strings.Count(res.stdout, "\n::warning"); e+w == 0 || e > action.MaxErrorAnnotations || w > action.MaxWarningAnnotations {
		t.Errorf("%d error and %d warning annotations, want 1 to %d and %d", e, w, action.MaxErrorAnnotations, action.MaxWarningAnnotations)
	}
	if !strings.Contains(res.stdout, "mcp-fuzz: pull request #7 comment: created") {
		t.Errorf("no comment created:\n%s", res.stdout)
	}
	if c := gh.Comments("o", "r", 7); len(c) != 1 {
		t.Errorf("after run 1: %d comments, want 1", len(c))
	}

	// Run 2: the gate is missed; the comment is edited, not duplicated.
	env = actionsEnv(t, ws, gh.URL)
	env["INPUT_FAIL-UNDER"] = "100"
	res = entrypoint(t, bin, ws, env)
	if res.code != 1 {
		t.Fatalf("missed gate: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	outputs = parseOutputs(t, read(t, env["GITHUB_OUTPUT"]))
	if outputs["passed"] != "false" {
		t.Errorf("missed gate: passed=%q", outputs["passed"])
	}
	if !strings.Contains(res.stdout, "::error::mcp-fuzz: gate missed") {
		t.Errorf("no ::error for the missed gate:\n%s", res.stdout)
	}
	if !strings.Contains(read(t, env["GITHUB_STEP_SUMMARY"]), "**Gates:** missed") {
		t.Error("the summary does not say the gate was missed")
	}
	{
		c := gh.Comments("o", "r", 7)
		if len(c) != 1 {
			t.Fatalf("after run 2: %d comments, want 1 (edited)", len(c))
		}
		if !strings.Contains(res.stdout, "mcp-fuzz: pull request #7 comment: edited") {
			t.Errorf("comment not edited:\n%s", res.stdout)
		}
		if !strings.Contains(c[0].Body, "fuzz") {
			t.Errorf("comment body has no section for job fuzz:\n%s", c[0].Body)
		}
		if calls := gh.Calls(); calls["create"] != 1 || calls["edit"] < 1 {
			t.Errorf("API calls %v: want one create, then edits", calls)
		}
	}
}

// TestActionForkPullRequest checks that a read-only token (a fork's pull
// request) gives a notice and leaves the exit code to the gates.
func TestActionForkPullRequest(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	gh := fakegithub.New(t)
	gh.SetReadOnly(true)
	ws := t.TempDir()
	env := actionsEnv(t, ws, gh.URL)
	env["INPUT_FAIL-UNDER"] = "50"
	res := entrypoint(t, bin, ws, env)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stdout)
	}
	if !strings.Contains(res.stdout, "::notice::mcp-fuzz: no permission to comment on pull request #7") {
		t.Errorf("no notice about the read-only token:\n%s", res.stdout)
	}
	if c := gh.Comments("o", "r", 7); len(c) != 0 {
		t.Errorf("%d comments on a read-only token", len(c))
	}
}

func TestActionOutsideActionsFiles(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	ws := t.TempDir()
	env := actionsEnv(t, ws, "http://127.0.0.1:1/")
	delete(env, "GITHUB_OUTPUT")
	delete(env, "GITHUB_STEP_SUMMARY")
	delete(env, "GITHUB_EVENT_NAME")
	env["INPUT_FAIL-UNDER"] = "100"
	res := entrypoint(t, bin, ws, env)
	if res.code != 1 {
		t.Fatalf("exit %d, want the gate's 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "::notice::mcp-fuzz: GITHUB_OUTPUT is not set") {
		t.Errorf("no notice about the missing GITHUB_OUTPUT:\n%s", res.stdout)
	}
	env["INPUT_FAIL-UNDER"] = "10"
	if res := entrypoint(t, bin, ws, env); res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stdout)
	}
}

func TestActionExitCodes(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	ws := t.TempDir()
	for _, tc := range []struct {
		name  string
		input map[string]string
		code  int
		say   string
	}{
		{"bad comment mode", map[string]string{"INPUT_COMMENT": "sometimes"}, 2, "input comment"},
		{"bad fail-on", map[string]string{"INPUT_FAIL-ON": "crash,explosion"}, 2, "explosion"},
		{"no target", map[string]string{"INPUT_COMMAND": ""}, 2, "no target"},
		{"cannot start", map[string]string{"INPUT_COMMAND": "/nonexistent/server --stdio"}, 3, "could not start or connect"},
		{"sequential alone", map[string]string{"INPUT_SEQUENTIAL": "true"}, 2, "input sequential creates and deletes resources through the server's tools: it needs input include-destructive"},
		{"bad sequential", map[string]string{"INPUT_SEQUENTIAL": "sometimes"}, 2, "input sequential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := actionsEnv(t, ws, "http://127.0.0.1:1/")
			for k, v := range tc.input {
				env[k] = v
			}
			res := entrypoint(t, bin, ws, env)
			if res.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tc.code, res.stdout, res.stderr)
			}
			if !strings.Contains(res.stdout, "::error::") || !strings.Contains(res.stdout, tc.say) {
				t.Errorf("stdout has no ::error saying %q:\n%s", tc.say, res.stdout)
			}
			summary := read(t, env["GITHUB_STEP_SUMMARY"])
			if !strings.Contains(summary, tc.say) {
				t.Errorf("summary does not say %q:\n%s", tc.say, summary)
			}
			checkMasks(t, res.stdout, res.stderr, summary)
		})
	}
}

// TestActionSequential runs the lifecycle checks from the Action's
// sequential input: a stale read fails the step when fail-on names it, and
// the input is no longer warned about as not supported.
func TestActionSequential(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	ws := t.TempDir()
	env := actionsEnv(t, ws, "http://127.0.0.1:1/")
	delete(env, "INPUT_TOOLS")
	env["INPUT_COMMAND"] = fixture.Build(t, "lifecycle-stale")
	env["INPUT_INCLUDE-DESTRUCTIVE"] = "true"
	env["INPUT_SEQUENTIAL"] = "true"
	env["INPUT_FAIL-ON"] = "stale_read"
	env["INPUT_COMMENT"] = "off"
	res := entrypoint(t, bin, ws, env)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (the stale read)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if strings.Contains(res.stdout, "sequential is not supported yet") {
		t.Errorf("input sequential is still warned about:\n%s", res.stdout)
	}
	rep := read(t, filepath.Join(ws, "reports", "mcp-fuzz.json"))
	for _, want := range []string{`"lifecycle/note#stale_read"`, `"sequential":true`} {
		if !strings.Contains(rep, want) {
			t.Errorf("the JSON report lacks %s", want)
		}
	}
	if summary := read(t, env["GITHUB_STEP_SUMMARY"]); !strings.Contains(summary, "stale_read") {
		t.Errorf("summary does not name stale_read:\n%s", summary)
	}
}

func TestEntrypointRunsCLI(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	res := entrypoint(t, bin, t.TempDir(), nil, "--help")
	if res.code != 0 || !strings.Contains(res.stdout, "Usage:\n  mcp-fuzz [flags]") {
		t.Fatalf("sh entrypoint.sh --help: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// Under Actions, arguments still mean the CLI (a `docker run` step with args).
	res = entrypoint(t, bin, t.TempDir(), map[string]string{"GITHUB_ACTIONS": "true"}, "version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "mcp-fuzz ") {
		t.Fatalf("sh entrypoint.sh version under Actions: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
