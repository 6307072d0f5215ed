package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// initArgs takes init's own flags (-o/--output FILE, --force) out of args,
// before any "--"; the rest are a run's flags.
func initArgs(args []string) (rest []string, out string, force bool, err error) {
	out = config.DefaultPath
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			rest = append(rest, a)
		case name == "force":
			force = !hasValue || value == "true"
			if hasValue && value != "true" && value != "false" {
				return nil, "", false, fmt.Errorf("--force=%q: want true or false (or --force alone for true)", value)
			}
		case name == "o" || name == "output":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, "", false, fmt.Errorf("%s needs a value", dashed(name))
				}
				i++
				value = args[i]
			}
			if value == "" {
				return nil, "", false, fmt.Errorf("%s needs a value", dashed(name))
			}
			out = value
		case name != "" && len(suggest.Nearest(name, []string{"force", "output"})) > 0 && !runFlag(name):
			// A typo of init's own flags, which a run's flags would not
			// suggest.
			return nil, "", false, fmt.Errorf("unknown flag %s%s", dashed(name), suggest.Hint(dashed(name), []string{"--force", "--output"}))
		default:
			rest = append(rest, a)
		}
	}
	return rest, out, force, nil
}

// runInit is `mcp-fuzz init [-o FILE] [--force] [flags] -- CMD`: a
// commented config file for the target's tools.
func (a *App) runInit(ctx context.Context, args []string) int {
	rest, out, force, err := initArgs(args)
	if err != nil {
		return a.usageError(err)
	}
	o, code, ok := a.planOptions("init", rest)
	if !ok {
		return code
	}
	if out != "-" && !force {
		// Checked before the server starts, and again when writing.
		if _, err := os.Lstat(out); err == nil {
			return a.usageError(fmt.Errorf("%s exists: give --force to replace it, or -o FILE to write another file", out))
		}
	}
	// The directory of out is held from before the server starts: the
	// server cannot redirect the file by swapping the directory.
	var dest output
	if out != "-" {
		dests := openOutputs([]string{out})
		defer dests.close()
		dest = dests[0]
	}
	p, code, ok := a.plan(ctx, o)
	if !ok {
		return code
	}
	b := initFile(p, a.Version)
	// What init writes must load: a file the next run refuses helps no one.
	if _, err := config.Parse(b); err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: init: the file written would not load (a bug; please report it): %v\n", err)
		return ExitUsage
	}
	if out == "-" {
		_, _ = a.Stdout.Write(b)
		return ExitOK
	}
	// Without --force, a file (or link) made at out during the run is
	// kept: only a new file is written.
	if err := dest.write(b, boundedfile.Options{Perm: 0o644, NoReplace: !force}); err != nil {
		if errors.Is(err, os.ErrExist) {
			return a.usageError(fmt.Errorf("%s exists: give --force to replace it, or -o FILE to write another file", out))
		}
		fmt.Fprintf(a.Stderr, "mcp-fuzz: writing %s: %v\n", out, err)
		return ExitUsage
	}
	if dest.moved() {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", movedWarning(out))
	}
	called := 0
	for _, t := range p.Tools {
		if t.Called {
			called++
		}
	}
	fmt.Fprintf(a.Stderr, "mcp-fuzz: wrote %s: %s (%d called by default); put realistic values into the examples and uncomment them\n", out, plural(len(p.Tools), "tool", "tools"), called)
	return ExitOK
}

// maxExampleBytes bounds the example skeleton written for a tool: a
// larger valid call is left to `mcp-fuzz cases`.
const maxExampleBytes = 4 << 10

// exampleMarker starts each commented line of an example skeleton:
// removing it from a line uncomments it (the tests do so).
const exampleMarker = "# "

// initFile is the config file init writes for p: every line but the
// per-tool keys commented, so that it changes nothing until edited (an
// uncommented generated example would make the valid call's error a real
// finding instead of a possible synthetic-input false positive).
func initFile(p *engine.Preview, version string) []byte {
	var b bytes.Buffer
	server := strings.TrimSpace(commentText(p.Server.Name+" "+p.Server.Version, 120))
	if server == "" {
		server = "(no name)"
	}
	target := p.Target.URL
	if target == "" {
		target = p.Target.Command
	}
	fmt.Fprintf(&b, "# mcp-fuzz configuration for %s, written by `mcp-fuzz init` (mcp-fuzz %s).\n", server, commentText(version, 40))
	fmt.Fprintf(&b, "# Target: %s\n", commentText(target, 200))
	b.WriteString(`# Every key is optional, and a flag given on the command line wins over the
# file. mcp-fuzz reads .mcp-fuzz.yml from the working directory, or the file
# --config names. Keys: see "Configuration file" in the README.

# Flag defaults, to uncomment and change:
# timeout: 15s            # per call (--timeout)
# startup-timeout: 60s    # spawn, handshake and tools/list (--startup-timeout)
# cases: 40               # per-tool case budget; 0: no limit (--cases)
# seed: 1                 # case generation seed (--seed)
# profile: default        # or aggressive (--profile)
# include-destructive: false
`)
	fmt.Fprintf(&b, "# fail-on: %s\n", score.DefaultFailOnNames())
	b.WriteString(`# fail-under: 75          # gate on the overall score (--fail-under)
# env:                    # for the server process (--env)
#   LOG_LEVEL: debug
`)
	if len(p.Tools) == 0 {
		b.WriteString("\n# The server listed no tools.\n")
		b.WriteString(expectedStub)
		return b.Bytes()
	}
	b.WriteString(`
# Per tool: an example of realistic arguments (the valid call, and the base
# of every mutation), skip or include, and a timeout. Each example below is
# the valid call mcp-fuzz generates from the tool's input schema: replace
# its values with ones the tool accepts (an id that exists, a real query)
# and uncomment it; a generated value the tool refuses is reported as a
# possible synthetic-input false positive, an example it refuses as a
# finding.
per-tool:
`)
	for _, t := range p.Tools {
		fmt.Fprintf(&b, "  %s:\n", yamlKey(t.Name))
		if d := commentText(t.Description, 100); d != "" {
			fmt.Fprintf(&b, "    # %s\n", d)
		}
		fmt.Fprintf(&b, "    # %s.\n", hints(t))
		if t.Called {
			fmt.Fprintf(&b, "    # Called by default (%s).\n", commentText(t.CallReason, 160))
			b.WriteString("    # skip: true          # never call it\n")
		} else {
			fmt.Fprintf(&b, "    # Not called: %s.\n", commentText(strings.TrimPrefix(t.SkipReason, "not called: "), 200))
			if t.Destructive == nil || *t.Destructive {
				b.WriteString("    # It may change or delete data: include it only against a disposable server.\n")
			}
			b.WriteString("    # include: true       # call it anyway\n")
		}
		b.WriteString("    # timeout: 30s        # its own per-call timeout\n")
		writeExample(&b, t)
	}
	b.WriteString(expectedStub)
	return b.Bytes()
}

const expectedStub = `
# Findings to accept: each case or finding id (as a report shows it) with the
# reason; they fail no gate.
# expected:
#   - id: search/extra_property
#     reason: extra keys are ignored by design
`

// writeExample writes t's example skeleton, commented.
func writeExample(b *bytes.Buffer, t engine.PreviewedTool) {
	switch {
	case len(t.Valid) > maxExampleBytes:
		fmt.Fprintf(b, "    # (its generated valid call is %d bytes: see mcp-fuzz cases --tools %s)\n", len(t.Valid), shellWord(t.Name))
		return
	case t.GeneratorGap != "":
		fmt.Fprintf(b, "    # (its generated valid call does not validate against its schema: %s)\n", commentText(t.GeneratorGap, 160))
	}
	y, ok := exampleYAML(t.Valid)
	if !ok {
		return
	}
	if strings.TrimSpace(y) == "{}" {
		b.WriteString("    " + exampleMarker + "example: {}\n")
		return
	}
	b.WriteString("    " + exampleMarker + "example:\n")
	for _, line := range strings.Split(strings.TrimRight(y, "\n"), "\n") {
		b.WriteString("    " + exampleMarker + "  " + line + "\n")
	}
}

// exampleYAML spells the valid call's arguments (a JSON object) as a YAML
// block; ok is false when they are not an object.
func exampleYAML(args json.RawMessage) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return "", false
	}
	if _, ok := v.(map[string]any); !ok {
		return "", false
	}
	out, err := yaml.Marshal(yamlNumbers(v))
	if err != nil {
		return "", false
	}
	if strings.ContainsFunc(string(out), escape.Invisible) {
		// yaml.Marshal writes a line separator (U+2028, a schema's
		// default may hold one) raw, which would end the comment the
		// example is in and make the rest of its line a key of the
		// file, and the other invisible characters raw, which would hide
		// or reorder text in a file the user commits: spell the example
		// as JSON (which YAML reads) with them escaped.
		j, err := json.Marshal(v)
		if err != nil {
			return "", false
		}
		return string(escape.JSON(j)) + "\n", true
	}
	return string(out), true
}

// yamlNumbers replaces the json.Numbers of v by int64 or float64, which
// YAML spells as numbers (a json.Number is a string to it).
func yamlNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = yamlNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = yamlNumbers(e)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	}
	return v
}

// plainKey is a tool name YAML reads as the same string unquoted.
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// yamlKey spells a tool name as a mapping key: plain when that reads back
// as the name, else double-quoted on one line (a server's names are any
// text): a JSON string is a YAML double-quoted scalar.
func yamlKey(name string) string {
	switch strings.ToLower(name) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf":
	default:
		if plainKey.MatchString(name) {
			return name
		}
	}
	out, _ := json.Marshal(name)
	// encoding/json leaves DEL, the C1 controls (NEL is a YAML line
	// break) and U+2028/U+2029 raw, which YAML refuses or reads as a line
	// break: escape them as \uXXXX, which a YAML double-quoted scalar
	// reads as the same character.
	return string(escape.JSON(out))
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if plainKey.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(commentText(s, 100), "'", `'\''`) + "'"
}

// runFlag reports whether name is a flag of a run.
func runFlag(name string) bool {
	_, _, err := parseArgs([]string{"--" + name + "=1"})
	return err == nil || !strings.HasPrefix(err.Error(), "unknown flag")
}

// commentText is s as one line of a comment of the file, cut to n runes:
// the invisible characters written as \uXXXX escapes (so two names that
// differ by a zero-width space read differently), then escape.Terminal's
// cleaning.
func commentText(s string, n int) string {
	return escape.Terminal(string(escape.JSON([]byte(s))), n)
}
