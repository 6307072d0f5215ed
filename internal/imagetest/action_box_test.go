package imagetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestActionServerReadsNoToken runs the Action end to end, as the runner
// starts it, against a server that reads what it can of its ancestors
// through /proc (environment and command line) and repeats it in its
// name, instructions, descriptions, answers and stderr, with the runner's
// tokens in the Action's environment. No token may reach the PR comment,
// the job summary, the outputs, the log or any file, box or no box; the
// box keeps the server from reading mcp-fuzz's environment at all, and
// without it the log warns.
func TestActionServerReadsNoToken(t *testing.T) {
	t.Parallel()
	bin := buildBinaries(t)
	snoop := fixture.Build(t, "hostile-proc-snoop")
	tokens := map[string]string{
		"INPUT_GITHUB-TOKEN":             "ghs_Box0Input1Token2Value3456789abcdefXY",
		"ACTIONS_RUNTIME_TOKEN":          "runtime-4f7c2a9e1b3d5f60",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "idtoken-8e1a6c3f9d2b7a45",
		"NPM_TOKEN":                      "npm_Box0Exported1Token2Value3456789abcd",
	}
	for _, box := range []string{"", "false"} {
		t.Run("box="+box, func(t *testing.T) {
			gh := fakegithub.New(t)
			ws := t.TempDir()
			env := actionsEnv(t, ws, gh.URL)
			env["INPUT_COMMAND"] = snoop
			env["INPUT_TOOLS"] = ""
			env["INPUT_FAIL-ON"] = "none"
			env["INPUT_BOX"] = box
			for k, v := range tokens {
				env[k] = v
			}
			res := entrypoint(t, bin, ws, env)
			if res.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			summary := read(t, env["GITHUB_STEP_SUMMARY"])
			places := map[string]string{"stderr": res.stderr, "summary": summary, "outputs": read(t, env["GITHUB_OUTPUT"])}
			// stdout: every line but the ::add-mask:: ones.
			var log []string
			for _, l := range strings.Split(res.stdout, "\n") {
				if !strings.HasPrefix(l, "::add-mask::") {
					log = append(log, l)
				}
			}
			places["stdout"] = strings.Join(log, "\n")
			comments := gh.Comments("o", "r", 7)
			if len(comments) != 1 {
				t.Fatalf("%d comments, want 1", len(comments))
			}
			places["comment"] = comments[0].Body
			_ = filepath.WalkDir(ws, func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					b, _ := os.ReadFile(path)
					places[path] = string(b)
				}
				return nil
			})
			for name, v := range tokens {
				for where, text := range places {
					if strings.Contains(text, v) {
						t.Errorf("%s's value in %s", name, where)
					}
				}
			}
			if !strings.Contains(summary, "proc-snoop") {
				t.Fatalf("the summary does not name the server: the test proves nothing\n%.500s", summary)
			}
			if box == "false" {
				if !strings.Contains(res.stdout, "::warning::mcp-fuzz: the box is off") || !strings.Contains(summary, "the box is off") {
					t.Errorf("box: false: no warning in the log or the summary")
				}
				if !strings.Contains(summary, "started-by-environ=read") {
					t.Errorf("box: false: the server could not read the Action's environment: the twin proves nothing")
				}
				return
			}
			if !strings.Contains(summary, "<b>Containment:</b>") || strings.Contains(summary, "the box is off") || !strings.Contains(res.stdout, "mcp-fuzz: box: ") {
				t.Errorf("box on: the summary has no containment line or a warning, or the log no box line")
			}
			if !strings.Contains(summary, "started-by-environ=denied") {
				t.Errorf("box on: the server read the Action's environment")
			}
		})
	}
}
