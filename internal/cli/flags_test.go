package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// buildArgs parses args as the command line does and builds the options.
func buildArgs(args ...string) (audit.Options, error) {
	st, _, err := parseArgs(args)
	if err != nil {
		return audit.Options{}, err
	}
	return audit.Build(st, audit.FlagNames, func(string) (string, bool) { return "", false })
}

func TestCostFlags(t *testing.T) {
	t.Parallel()
	o, err := buildArgs("--", "srv")
	if err != nil {
		t.Fatal(err)
	}
	c := o.Engine
	if c.MaxResponse != engine.DefaultMaxResponse || c.Parallel != 1 || c.MaxHangs != engine.DefaultMaxHangs || c.Repeat != engine.DefaultRepeat {
		t.Errorf("defaults: max-response %d, parallel %d, max-hangs %d, repeat %d", c.MaxResponse, c.Parallel, c.MaxHangs, c.Repeat)
	}
	if o, err := buildArgs("--repeat", "1", "--", "srv"); err != nil || o.Engine.Repeat != 1 {
		t.Errorf("--repeat 1: repeat %d, %v", o.Engine.Repeat, err)
	}
	o, err = buildArgs("--max-response", "512KiB", "--parallel", "4", "--max-hangs", "0", "--", "srv")
	if err != nil {
		t.Fatal(err)
	}
	c = o.Engine
	if c.MaxResponse != 512<<10 || c.Parallel != 4 || c.MaxHangs >= 0 {
		t.Errorf("got max-response %d, parallel %d, max-hangs %d; want 524288, 4, never (negative)", c.MaxResponse, c.Parallel, c.MaxHangs)
	}
	for bad, want := range map[string]string{
		"--max-response 1KiB": "--max-response 1KiB: want 64KiB to 1GiB",
		"--max-response 2GiB": "--max-response 2GiB: want 64KiB to 1GiB",
		"--max-response lots": "--max-response lots: want a size like",
		"--parallel 0":        "--parallel 0: want 1 to 64",
		"--parallel 65":       "--parallel 65: want 1 to 64",
		"--max-hangs -1":      "--max-hangs -1: must be 0",
		"--repeat 0":          "--repeat 0: want 1 to 20",
		"--repeat 21":         "--repeat 21: want 1 to 20",
		"--timeout soon":      `--timeout "soon": want seconds or a duration like 30s`,
		"--profile wild":      `--profile "wild": want default or aggressive`,
		"--env NOEQUALS":      `--env "***": want KEY=VALUE`,
	} {
		if _, err := buildArgs(append(strings.Fields(bad), "--", "srv")...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", bad, err, want)
		}
	}
}

func TestCostSettingsFromConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yml")
	if err := os.WriteFile(file, []byte("max-response: 8MiB\nparallel: 3\nmax-hangs: 5\nrepeat: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := buildArgs("--config", file, "--parallel", "2", "--", "srv")
	if err != nil {
		t.Fatal(err)
	}
	if c := o.Engine; c.MaxResponse != 8<<20 || c.Parallel != 2 || c.MaxHangs != 5 || c.Repeat != 7 {
		t.Errorf("got max-response %d, parallel %d (the flag wins), max-hangs %d, repeat %d", c.MaxResponse, c.Parallel, c.MaxHangs, c.Repeat)
	}
	// A value the flag refuses is refused in the file too, naming the key.
	for body, key := range map[string]string{
		"max-response: huge\n": "config max-response",
		"max-response: 1KiB\n": "config max-response: 1KiB",
		"max-hangs: -1\n":      "config max-hangs",
		"cases: -3\n":          "config cases",
		"parallel: 0\n":        "config parallel",
		"repeat: 50\n":         "config repeat: 50: want 1 to 20",
	} {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := buildArgs("--config", file, "--", "srv"); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q in the file: %v, want an error naming %q", body, err, key)
		}
	}
}

// The --fail-on kinds are written out in the README and action.yml; they
// must list the code catalogue's, in its order, so a new finding code is
// documented where users look.
func TestDocsListEveryFailOnKind(t *testing.T) {
	t.Parallel()
	want := strings.Join(failOnNames(), ", ")
	for _, doc := range []string{"../../README.md", "../../action.yml", "../../.github/actions/local/action.yml"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(b), "`", "")
		if !strings.Contains(text, want) {
			t.Errorf("%s does not list the --fail-on kinds as %q", doc, want)
		}
	}
	help := strings.Join(strings.Fields(usageText), " ")
	if !strings.Contains(help, "any finding of KIND: "+want) {
		t.Errorf("--help does not list the --fail-on kinds as %q", want)
	}
}
