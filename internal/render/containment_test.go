package render

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestContainmentInEveryFormat: the box a stdio server ran in is said in
// the terminal summary, the Markdown report (so the job summary), SARIF
// and JSON; a run without the box carries its warning in each; a report
// without a run (an HTTP target) says nothing of containment.
func TestContainmentInEveryFormat(t *testing.T) {
	t.Parallel()
	boxed := &report.Run{Box: true, Summary: "uid 990 (mcp-fuzz-box) · Landlock 7 · PID namespace",
		Containment: []string{"uid 990, gid 990 (mcp-fuzz-box), no capability", "landlock ABI 7: no ptrace and no signal outside the box"}}
	unboxed := &report.Run{Summary: "off (--no-box)", Containment: []string{"none (--no-box): the server runs as uid 0 beside mcp-fuzz"},
		Warning: "the box is off (--no-box): the server can read mcp-fuzz's memory"}
	want := map[string][]string{
		"text":     {"uid 990 (mcp-fuzz-box) · Landlock 7 · PID namespace"},
		"markdown": {"<b>Containment:</b> uid 990 (mcp-fuzz-box) · Landlock 7 · PID namespace", "- landlock ABI 7: no ptrace and no signal outside the box"},
		"sarif":    {`"containment": [`, `"uid 990, gid 990 (mcp-fuzz-box), no capability"`},
		"junit":    {`<property name="containment" value="uid 990, gid 990 (mcp-fuzz-box), no capability; landlock ABI 7`},
		"jsonl":    {`{"type":"run","box":true,"summary":"uid 990 (mcp-fuzz-box) · Landlock 7 · PID namespace"`},
		"json":     {`"containment":["uid 990, gid 990`, `"summary":"uid 990 (mcp-fuzz-box) · Landlock 7 · PID namespace"`},
	}
	for name, needles := range want {
		f, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range []*report.Run{boxed, unboxed, nil} {
			rep := demoReport(t)
			rep.Run = run
			out, err := f.Render(rep, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			text := string(out)
			switch run {
			case boxed:
				for _, n := range needles {
					if !strings.Contains(text, n) {
						t.Errorf("%s, boxed: no %q in\n%.2000s", name, n, text)
					}
				}
				if strings.Contains(text, "box is off") {
					t.Errorf("%s, boxed: a warning", name)
				}
			case unboxed:
				if !strings.Contains(text, "the box is off") {
					t.Errorf("%s, unboxed: no warning in\n%.2000s", name, text)
				}
			default:
				if strings.Contains(strings.ToLower(text), "containment") {
					t.Errorf("%s, no run: containment said", name)
				}
			}
		}
	}
}
