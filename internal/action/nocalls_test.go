package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestNoCallsInput runs the whole Action on a pull request with the input
// no-calls against the malformed-tools fixture, which logs every message it
// reads: no tools/call reaches it, the step passes (the default gate's
// "nothing tested" does not apply), and the outputs, the job summary and
// the PR comment say it was a static audit, graded on Schema.
func TestNoCallsInput(t *testing.T) {
	t.Parallel()
	env := prEnv(t)
	log := filepath.Join(t.TempDir(), "methods.log")
	env["INPUT_COMMAND"] = fixture.Build(t, "malformed-tools") + " -depth 40 -log " + log
	env["INPUT_NO-CALLS"] = "true"
	env["INPUT_REPORT"] = "report.json"
	fake := fakegithub.New(t)
	var out, progress bytes.Buffer
	code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &progress,
		CommentClient: fakeComments(t, fake, "https://api.github.com/")})
	if code != ExitOK || strings.Contains(out.String(), "gate missed") {
		t.Fatalf("exit %d, want %d with every gate passed\n%s", code, ExitOK, out.String())
	}

	methods, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(methods), "tools/call") || !strings.Contains(string(methods), "tools/list") {
		t.Errorf("the server read:\n%s\nwant tools/list and no tools/call", methods)
	}
	if !strings.Contains(progress.String(), "sane_tool skipped (not called: --no-calls (static audit))") {
		t.Errorf("progress lacks the skip reason:\n%s", progress.String())
	}

	outputs := map[string]string{}
	raw, _ := os.ReadFile(env["GITHUB_OUTPUT"])
	lines := strings.Split(string(raw), "\n")
	for i, line := range lines {
		if k, _, ok := strings.Cut(line, "<<"); ok && i+1 < len(lines) {
			outputs[k] = lines[i+1]
		}
	}
	if outputs["static"] != "true" || outputs["grade"] == "" || outputs["score"] == "" || outputs["passed"] != "true" ||
		!strings.HasSuffix(outputs["badge-url"], "%20static-"+render.GradeColour(outputs["grade"])) {
		t.Errorf("outputs %v: want static true, a grade and score, passed, and a static badge", outputs)
	}
	rep, err := report.ReadFile(filepath.Join(env["GITHUB_WORKSPACE"], "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Static || !rep.Config.NoCalls || rep.Score == nil || *rep.Score != *rep.Dimensions["schema"].Score {
		t.Errorf("report: static %v, noCalls %v, score %v: want a static report scored on Schema", rep.Static, rep.Config.NoCalls, rep.Score)
	}
	summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), report.StaticLabel) {
		t.Errorf("job summary lacks %q:\n%s", report.StaticLabel, summary)
	}
	if !strings.Contains(out.String(), "mcp-fuzz: score "+outputs["score"]+", grade "+outputs["grade"]+" ("+report.StaticLabel+"), 0 findings") {
		t.Errorf("verdict line lacks the label:\n%s", out.String())
	}

	secs := sections(t, fake)
	if len(secs) != 1 || !secs[0].Static || secs[0].Untested != report.StaticLabel || secs[0].Score == nil {
		t.Fatalf("sections %+v: want one static section, graded", secs)
	}
	body := fake.Comments("o", "r", 3)[0].Body
	if !strings.Contains(body, "("+report.StaticLabel+") | — | — | — |") {
		t.Errorf("the comment's row does not show the label and no call counts:\n%s", body)
	}
}

// TestNoCallsInputConflicts: no-calls with an input that asks for calls is
// a bad input (exit 2), said as the inputs.
func TestNoCallsInputConflicts(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"tools":               "input no-calls with input tools: it chooses the tools to call",
		"include-destructive": "input no-calls with input include-destructive: a static audit calls no tool",
		"repeat":              "input no-calls with input repeat: it times repeated valid calls",
		"era":                 "input no-calls with input era both: the era comparison compares the verdicts of calls",
	} {
		t.Run(in, func(t *testing.T) {
			v := map[string]string{"tools": "add_*", "include-destructive": "true", "repeat": "5", "era": "both"}[in]
			code, out, _, _ := runClean(t, map[string]string{"no-calls": "true", in: v})
			if code != ExitUsage || !strings.Contains(out, "::error::mcp-fuzz: "+want) {
				t.Errorf("exit %d, want %d and %q in\n%s", code, ExitUsage, want, out)
			}
		})
	}
	code, out, _, _ := runClean(t, map[string]string{"no-calls": "yes please"})
	if code != ExitUsage || !strings.Contains(out, `input no-calls "yes please": want true or false`) {
		t.Errorf("exit %d, want %d\n%s", code, ExitUsage, out)
	}
}
