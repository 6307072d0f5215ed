package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
)

// The help lists every format of the registry: its name under --format and
// its extension under -o.
func TestHelpListsEveryFormat(t *testing.T) {
	t.Parallel()
	formatHelp := regexp.MustCompile(`(?m)^  --format F +(.*)$`).FindStringSubmatch(usageText)
	outputHelp := regexp.MustCompile(`(?s)\n  -o, --output FILE +(.*?)\n\n`).FindStringSubmatch(usageText)
	if formatHelp == nil || outputHelp == nil {
		t.Fatal("the help has no --format or -o entry")
	}
	names := regexp.MustCompile(`[a-z]+`).FindAllString(formatHelp[1], -1)
	outputs := strings.Join(strings.Fields(outputHelp[1]), " ")
	for _, f := range render.Formats() {
		if !slices.Contains(names, f.Name) {
			t.Errorf("--format help %q does not list %s", formatHelp[1], f.Name)
		}
		if f.Ext != "" && !strings.Contains(outputs, " "+f.Ext+" ") {
			t.Errorf("-o help does not list %s", f.Ext)
		}
	}
}
