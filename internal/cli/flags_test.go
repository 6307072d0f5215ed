package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

func TestCostFlags(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	o, err := parseArgs([]string{"--", "srv"}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.MaxResponse != engine.DefaultMaxResponse || o.cfg.Parallel != 1 || o.cfg.MaxHangs != engine.DefaultMaxHangs {
		t.Errorf("defaults: max-response %d, parallel %d, max-hangs %d", o.cfg.MaxResponse, o.cfg.Parallel, o.cfg.MaxHangs)
	}
	o, err = parseArgs([]string{"--max-response", "512KiB", "--parallel", "4", "--max-hangs", "0", "--", "srv"}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.MaxResponse != 512<<10 || o.cfg.Parallel != 4 || o.cfg.MaxHangs >= 0 {
		t.Errorf("got max-response %d, parallel %d, max-hangs %d; want 524288, 4, never (negative)", o.cfg.MaxResponse, o.cfg.Parallel, o.cfg.MaxHangs)
	}
	for _, bad := range [][]string{
		{"--max-response", "1KiB"}, {"--max-response", "2GiB"}, {"--max-response", "lots"},
		{"--parallel", "0"}, {"--parallel", "65"}, {"--max-hangs", "-1"},
	} {
		if _, err := parseArgs(append(bad, "--", "srv"), none, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestCostSettingsFromConfigFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yml")
	if err := os.WriteFile(file, []byte("max-response: 8MiB\nparallel: 3\nmax-hangs: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	o, err := parseArgs([]string{"--config", file, "--parallel", "2", "--", "srv"}, none, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.MaxResponse != 8<<20 || o.cfg.Parallel != 2 || o.cfg.MaxHangs != 5 {
		t.Errorf("got max-response %d, parallel %d (the flag wins), max-hangs %d", o.cfg.MaxResponse, o.cfg.Parallel, o.cfg.MaxHangs)
	}
	// A value the flag refuses is refused in the file too, naming the key.
	for body, key := range map[string]string{
		"max-response: huge\n": "config max-response",
		"max-response: 1KiB\n": "config max-response: 1KiB",
		"max-hangs: -1\n":      "config max-hangs",
		"cases: -3\n":          "config cases",
		"parallel: 0\n":        "config parallel",
	} {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := parseArgs([]string{"--config", file, "--", "srv"}, none, io.Discard); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q in the file: %v, want an error naming %q", body, err, key)
		}
	}
}
