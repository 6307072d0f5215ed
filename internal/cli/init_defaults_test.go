package cli

import (
	"regexp"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The flag defaults init writes, commented out, are keys of the config
// file with the table's defaults.
func TestInitWritesTheTablesDefaults(t *testing.T) {
	b := initFile(&engine.Preview{Server: report.Server{Name: "srv"}, Target: report.Target{Transport: "stdio", Command: "./srv"}}, "test")
	lines := regexp.MustCompile(`(?m)^# ([a-z-]+): *([^ #\n]*)`).FindAllStringSubmatch(string(b), -1)
	if len(lines) < 5 {
		t.Fatalf("init wrote %d flag defaults:\n%s", len(lines), b)
	}
	for _, m := range lines {
		o, ok := options.ByConfig(m[1])
		switch {
		case !ok:
			t.Errorf("init writes %q, no key of the config file", m[1])
		case o.Default != nil && m[2] != o.DefaultText():
			t.Errorf("init writes %s: %s, the table's default is %s", m[1], m[2], o.DefaultText())
		}
	}
}
