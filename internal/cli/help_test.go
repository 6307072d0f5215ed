package cli

import (
	"os"
	"strings"
	"testing"
)

// Every subcommand has help of its own, with examples, and is named in
// --help and in the README's usage section: the three stay in step.
func TestEveryCommandIsDocumented(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, usage, _ := strings.Cut(string(readme), "\n## Usage")
	usage, _, _ = strings.Cut(usage, "\n## ")
	for _, c := range commands {
		if !strings.HasPrefix(c.usage, "Usage: mcp-fuzz "+c.name) {
			t.Errorf("%s: its help does not start with its usage line:\n%s", c.name, c.usage)
		}
		if c.name != "version" && !strings.Contains(c.usage, "\nExamples:\n") {
			t.Errorf("%s: its help has no Examples block", c.name)
		}
		if !strings.Contains(usageText, "\n  mcp-fuzz "+c.name+" ") && !strings.Contains(usageText, "\n  mcp-fuzz "+c.name+"\n") {
			t.Errorf("%s: not in --help", c.name)
		}
		if !strings.Contains(usage, "\nmcp-fuzz "+c.name+" ") {
			t.Errorf("%s: not in the README's usage section", c.name)
		}
	}
}
