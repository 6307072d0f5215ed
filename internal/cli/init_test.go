package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// uncomment turns the example skeletons and the include choices of an
// init file into settings, as its reader is asked to.
func uncomment(file string) string {
	var out []string
	for _, line := range strings.Split(file, "\n") {
		switch {
		case strings.HasPrefix(line, "    "+exampleMarker+"example:"):
			line = "    " + strings.TrimPrefix(line, "    "+exampleMarker)
		case strings.HasPrefix(line, "    "+exampleMarker+"  "):
			line = "    " + strings.TrimPrefix(line, "    "+exampleMarker)
		case strings.HasPrefix(line, "    # include: true"):
			line = "    include: true"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func TestInitFileRoundTrips(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	hostile := "::error::x\n\"quoted\": yes # not a comment\x1b[2J"
	p := &engine.Preview{
		Server: report.Server{Name: "srv\n::warning::x", Version: "1"},
		Target: report.Target{Transport: "stdio", Command: "./srv"},
		Tools: []engine.PreviewedTool{
			{Name: "search", Description: "Search.\nSecond line", ReadOnly: &yes, Called: true, CallReason: "annotated readOnlyHint: true",
				Valid: json.RawMessage(`{"query":"a: b # c","limit":3,"ratio":0.5,"big":12345678901234,"when":"2024-01-01","flag":true,"tags":["x","null"],"filter":{"owner":{"id":"u-1"}},"none":null}`)},
			{Name: hostile, Description: hostile, ReadOnly: &no, Destructive: &yes, SkipReason: "not called: not annotated readOnlyHint: true",
				Valid: json.RawMessage(`{"text":"line one\nline two","esc":"\u001b[31m"}`)},
			{Name: "true", Called: true, ReadOnly: &yes, CallReason: "annotated readOnlyHint: true", Valid: json.RawMessage(`{}`)},
			{Name: "huge", Called: true, ReadOnly: &yes, CallReason: "annotated readOnlyHint: true", Valid: json.RawMessage(`{"s":"` + strings.Repeat("a", maxExampleBytes) + `"}`)},
		},
	}
	b := initFile(p, "test")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsAny(line, "\x1b\r") {
			t.Errorf("unescaped server text on line %q", line)
		}
	}
	// As written: it loads, and sets nothing.
	f, err := config.Parse(b)
	if err != nil {
		t.Fatalf("the file does not load: %v\n%s", err, b)
	}
	for name, tool := range f.PerTool {
		if tool.Example != nil || tool.Skip || tool.Include {
			t.Errorf("per-tool %q sets %+v before it is edited", name, tool)
		}
	}
	if len(f.PerTool) != len(p.Tools) {
		t.Errorf("per-tool has %d tools, want %d:\n%s", len(f.PerTool), len(p.Tools), b)
	}
	// Uncommented: each example is the valid call, byte for byte as JSON.
	edited := uncomment(string(b))
	f, err = config.Parse([]byte(edited))
	if err != nil {
		t.Fatalf("the uncommented file does not load: %v\n%s", err, edited)
	}
	for _, tool := range p.Tools {
		got, ok := f.PerTool[tool.Name]
		if !ok {
			t.Errorf("no per-tool entry named %q", tool.Name)
			continue
		}
		if tool.Name == "huge" {
			if got.Example != nil {
				t.Errorf("huge: an example of %d bytes was written", len(tool.Valid))
			}
			continue
		}
		want := normalJSON(t, tool.Valid)
		if g := normalJSON(t, mustJSON(t, got.Example)); g != want {
			t.Errorf("%q: example %s, want %s", tool.Name, g, want)
		}
		if got.Include != !tool.Called {
			t.Errorf("%q: include %v after uncommenting, want %v", tool.Name, got.Include, !tool.Called)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// normalJSON re-encodes b with sorted keys.
func normalJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return string(mustJSON(t, v))
}

func TestYAMLKey(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"search":    "search",
		"get.v2-x":  "get.v2-x",
		"true":      `"true"`,
		"1abc":      `"1abc"`,
		"a: b":      `"a: b"`,
		"x\ny":      `"x\ny"`,
		"#comment":  `"#comment"`,
		"::error::": `"::error::"`,
	} {
		if got := yamlKey(name); got != want {
			t.Errorf("yamlKey(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestInitArgs(t *testing.T) {
	t.Parallel()
	rest, out, force, err := initArgs([]string{"--force", "-o", "x.yml", "--seed", "3", "--", "srv", "-o", "y", "--force"})
	if err != nil || out != "x.yml" || !force || strings.Join(rest, " ") != "--seed 3 -- srv -o y --force" {
		t.Errorf("initArgs = %q, %q, %v, %v", rest, out, force, err)
	}
	if _, out, _, _ := initArgs([]string{"--output=a.yml"}); out != "a.yml" {
		t.Errorf("--output=a.yml: out = %q", out)
	}
	if _, _, _, err := initArgs([]string{"--force=maybe"}); err == nil {
		t.Error("--force=maybe: no error")
	}
}
