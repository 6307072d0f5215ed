package action

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifcheck"
)

// runSARIF runs the action on the demo server (get_weather and
// lookup_user, which have findings) in a workspace holding files, with
// inputs; it returns the exit code, the workflow commands and the SARIF
// written to out.sarif (nil when none).
func runSARIF(t *testing.T, files map[string]string, env map[string]string) (code int, out string, sarif []byte, ws string) {
	t.Helper()
	ws = t.TempDir()
	for p, content := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "o"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "s"),
		"GITHUB_JOB": "fuzz", "INPUT_COMMAND": mcpFuzzBinary(t) + " demo-server", "INPUT_TOOLS": "lookup_user,get_weather",
		"INPUT_TIMEOUT": "1", "INPUT_CASES": "6", "INPUT_COMMENT": "off", "INPUT_SARIF": "out.sarif", "INPUT_FAIL-ON": "none",
	}
	for k, v := range env {
		e[k] = v
	}
	var stdout bytes.Buffer
	code = Run(context.Background(), Env{Getenv: func(k string) string { return e[k] }, Stdout: &stdout})
	dir := ws
	if wd := e["INPUT_WORKING-DIRECTORY"]; wd != "" {
		dir = filepath.Join(ws, wd)
	}
	sarif, _ = os.ReadFile(filepath.Join(dir, "out.sarif"))
	return code, stdout.String(), sarif, ws
}

// sarifRun decodes the parts of the one run the tests look at.
type sarifRunView struct {
	AutomationDetails struct{ ID string } `json:"automationDetails"`
	Results           []struct {
		Locations []struct {
			PhysicalLocation struct {
				ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
				Region           struct{ StartLine int } `json:"region"`
			} `json:"physicalLocation"`
		} `json:"locations"`
		Properties struct{ Tool string } `json:"properties"`
	} `json:"results"`
}

func decodeRun(t *testing.T, b []byte) sarifRunView {
	t.Helper()
	var log struct{ Runs []sarifRunView }
	if err := json.Unmarshal(b, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("decoding SARIF: %v\n%s", err, b)
	}
	return log.Runs[0]
}

// The SARIF of a run in working-directory srv points at srv's config file
// (get_weather at its per-tool line) relative to the workspace, its
// category is the comment key, and it passes code scanning's checks.
func TestActionSARIF(t *testing.T) {
	t.Parallel()
	code, out, b, ws := runSARIF(t, map[string]string{
		"srv/package.json":  "{}\n",
		"srv/.mcp-fuzz.yml": "per-tool:\n  get_weather:\n    example: {city: Paris}\n",
	}, map[string]string{"INPUT_WORKING-DIRECTORY": "srv", "INPUT_COMMENT-KEY": "leg linux"})
	if code != ExitOK || b == nil {
		t.Fatalf("exit %d, sarif %d bytes\n%s", code, len(b), out)
	}
	if err := sarifcheck.Check(b, sarifcheck.Options{Root: ws}); err != nil {
		t.Fatalf("SARIF fails the checks: %v", err)
	}
	run := decodeRun(t, b)
	if run.AutomationDetails.ID != "mcp-fuzz/leg linux/" {
		t.Errorf("automationDetails.id %q", run.AutomationDetails.ID)
	}
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, res := range run.Results {
		l := res.Locations[0].PhysicalLocation
		want := 1
		if res.Properties.Tool == "get_weather" {
			want = 2
		}
		if l.ArtifactLocation.URI != "srv/.mcp-fuzz.yml" || l.Region.StartLine != want {
			t.Errorf("%s at %s:%d, want srv/.mcp-fuzz.yml:%d", res.Properties.Tool, l.ArtifactLocation.URI, l.Region.StartLine, want)
		}
	}
	if strings.Contains(out, "no file in the repository") {
		t.Errorf("warned about a missing location:\n%s", out)
	}
}

// Without comment-key the category is the job and the target's command;
// without a config file or manifest the results point at the workflow's
// mcp-fuzz step.
func TestActionSARIFWorkflow(t *testing.T) {
	t.Parallel()
	code, out, b, ws := runSARIF(t, map[string]string{
		".github/workflows/fuzz.yml": "on: push\njobs:\n  fuzz:\n    steps:\n      - uses: mcp-fuzz/mcp-fuzz@v1\n",
	}, map[string]string{"GITHUB_WORKFLOW_REF": "o/r/.github/workflows/fuzz.yml@refs/heads/main", "GITHUB_REPOSITORY": "o/r"})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if err := sarifcheck.Check(b, sarifcheck.Options{Root: ws}); err != nil {
		t.Fatalf("SARIF fails the checks: %v", err)
	}
	run := decodeRun(t, b)
	if want := "mcp-fuzz/fuzz " + mcpFuzzBinary(t) + " demo-server/"; run.AutomationDetails.ID != want {
		t.Errorf("automationDetails.id %q, want %q", run.AutomationDetails.ID, want)
	}
	l := run.Results[0].Locations[0].PhysicalLocation
	if l.ArtifactLocation.URI != ".github/workflows/fuzz.yml" || l.Region.StartLine != 5 {
		t.Errorf("located at %s:%d", l.ArtifactLocation.URI, l.Region.StartLine)
	}
}

// Nothing to point at: a warning, and the file is written all the same.
func TestActionSARIFNoLocation(t *testing.T) {
	t.Parallel()
	code, out, b, _ := runSARIF(t, nil, nil)
	if code != ExitOK || b == nil {
		t.Fatalf("exit %d, sarif %d bytes\n%s", code, len(b), out)
	}
	if !strings.Contains(out, "::warning::mcp-fuzz: no file in the repository to locate SARIF results at") {
		t.Errorf("no warning:\n%s", out)
	}
}

// A sarif-location that is not a file of the workspace is a bad input
// (exit 2), before the server starts.
func TestActionSARIFLocationMissing(t *testing.T) {
	t.Parallel()
	code, out, b, _ := runSARIF(t, nil, map[string]string{"INPUT_SARIF-LOCATION": "nope.json"})
	if code != ExitUsage || b != nil {
		t.Fatalf("exit %d, sarif %d bytes", code, len(b))
	}
	if !strings.Contains(out, "::error::mcp-fuzz: input sarif-location nope.json: not a file in the repository") {
		t.Errorf("no error:\n%s", out)
	}
	code, out, b, ws := runSARIF(t, map[string]string{"docs/server.md": "# x\n", "package.json": "{}"}, map[string]string{"INPUT_SARIF-LOCATION": "docs/server.md"})
	if code != ExitOK || sarifcheck.Check(b, sarifcheck.Options{Root: ws}) != nil || !bytes.Contains(b, []byte(`"uri": "docs/server.md"`)) {
		t.Errorf("named file not used: exit %d\n%s", code, out)
	}
}
