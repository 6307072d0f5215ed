package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActionGates runs the whole Action on the demo server (whose
// get_weather exits on bad input): without a gate input the step fails on
// its crashes; fail-on none passes; a baseline alone fails only on findings
// the baseline does not have.
func TestActionGates(t *testing.T) {
	t.Parallel()
	bin := mcpFuzzBinary(t)
	run := func(inputs map[string]string) (int, string, map[string]string) {
		t.Helper()
		ws := t.TempDir()
		env := map[string]string{
			"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "out"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "summary"),
			"GITHUB_EVENT_NAME": "push", "PATH": os.Getenv("PATH"),
			"INPUT_COMMAND": bin + " demo-server", "INPUT_TIMEOUT": "1",
		}
		for k, v := range inputs {
			env["INPUT_"+strings.ToUpper(k)] = v
		}
		var out bytes.Buffer
		code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out})
		// Outputs are written as name<<DELIMITER, the value, DELIMITER;
		// the values read here are one line.
		outputs := map[string]string{}
		raw, _ := os.ReadFile(env["GITHUB_OUTPUT"])
		lines := strings.Split(string(raw), "\n")
		for i, line := range lines {
			if k, _, ok := strings.Cut(line, "<<"); ok && i+1 < len(lines) {
				outputs[k] = lines[i+1]
			}
		}
		return code, out.String(), outputs
	}

	code, out, outputs := run(map[string]string{"tools": "get_weather"})
	if code != ExitGate || !strings.Contains(out, "::error::mcp-fuzz: gate missed: 7 crash findings (the default gate fail-on security,crash,hang,protocol,leak; fail-on none turns it off)") || outputs["passed"] != "false" {
		t.Errorf("no gate input: exit %d, passed %q, want %d and false with the default gate named\n%s", code, outputs["passed"], ExitGate, out)
	}

	base := filepath.Join(t.TempDir(), "base.json")
	code, out, outputs = run(map[string]string{"tools": "get_weather", "fail-on": "none", "report": base})
	if code != ExitOK || strings.Contains(out, "gate missed") || outputs["passed"] != "true" {
		t.Errorf("fail-on none: exit %d, passed %q, want %d and true\n%s", code, outputs["passed"], ExitOK, out)
	}

	// The same crashes as the baseline: nothing new, the step passes.
	code, out, _ = run(map[string]string{"tools": "get_weather", "baseline": base})
	if code != ExitOK || strings.Contains(out, "gate missed") {
		t.Errorf("baseline alone, nothing new: exit %d, want %d\n%s", code, ExitOK, out)
	}
	// A tool the baseline did not audit brings new findings: they fail.
	code, out, _ = run(map[string]string{"tools": "get_weather,read_config", "baseline": base})
	if code != ExitGate || !strings.Contains(out, "not in the baseline (fail-on-new): read_config/") {
		t.Errorf("baseline alone, new findings: exit %d, want %d naming read_config\n%s", code, ExitGate, out)
	}
}
