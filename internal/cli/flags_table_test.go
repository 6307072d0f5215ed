package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options/optionstest"
)

// flagRows are the settings of the table that have a flag.
func flagRows() []options.Option {
	var out []options.Option
	for _, o := range options.All() {
		if o.Flag.Name != "" {
			out = append(out, o)
		}
	}
	return out
}

// The flags of a run are exactly the table's: each setting with a flag has
// it (and its short name), and no other flag is defined but -h, --help and
// one --fail-under-DIM per dimension.
func TestFlagsAreTheTables(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	registerFlags(fs)
	defined := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { defined[f.Name] = true })
	for _, o := range flagRows() {
		names := []string{o.Flag.Name}
		if o.Flag.Short != "" {
			names = append(names, o.Flag.Short)
		}
		if o.Kind == options.Dimensions {
			names = nil
			for _, d := range dimensionFlags {
				names = append(names, "fail-under-"+d)
			}
		}
		for _, n := range names {
			if !defined[n] {
				t.Errorf("%s: no flag %s", o.Key, dashed(n))
			}
			delete(defined, n)
		}
	}
	for n := range defined {
		t.Errorf("flag %s is no setting of the table", dashed(n))
	}
	// The names of settings without a flag, and the other front ends'
	// names, are no flags.
	for _, o := range options.All() {
		for _, name := range []string{o.Key, o.Input.Name, o.Config, o.Param.Name} {
			if _, isFlag := options.ByFlag(name); name == "" || isFlag {
				continue
			}
			if _, _, err := parseArgs([]string{"--" + name + "=1"}); err == nil || !strings.HasPrefix(err.Error(), "unknown flag --"+name) {
				t.Errorf("--%s (%s): %v, want an unknown flag", name, o.Key, err)
			}
		}
	}
}

// sampleArgs are flags for o and what its setting reads from them.
func sampleArgs(o options.Option) (args []string, want any) {
	f := "--" + o.Flag.Name
	switch o.Kind {
	case options.Bool:
		return []string{f}, !o.Flag.Negated
	case options.Int:
		return []string{f, "7"}, 7
	case options.Int64:
		return []string{f, "9"}, int64(9)
	case options.Duration:
		return []string{f, "2.5"}, 2500 * time.Millisecond
	case options.Lines, options.Names:
		return []string{f, "a,b.json", f, "c.json"}, []string{"a,b.json", "c.json"}
	case options.List:
		return []string{f, "a,b", f, "c"}, []string{"a", "b", "c"}
	case options.Dimensions:
		return []string{"--fail-under-schema", "70", "--fail-under-liveness", "80"}, map[string]int{"schema": 70, "liveness": 80}
	}
	if o.Values != nil {
		return []string{f, o.Values[len(o.Values)-1]}, o.Values[len(o.Values)-1]
	}
	return []string{f, "x.json"}, "x.json"
}

// Each flag gives its setting a value of its kind, under the setting's key.
func TestFlagsBecomeSettings(t *testing.T) {
	for _, o := range flagRows() {
		args, want := sampleArgs(o)
		st, _, err := parseArgs(args)
		if err != nil {
			t.Errorf("%s: %v", strings.Join(args, " "), err)
			continue
		}
		if got := st.Given[o.Key]; !reflect.DeepEqual(got, want) || !o.Takes(got) {
			t.Errorf("%s: %s = %#v, want %#v", strings.Join(args, " "), o.Key, got, want)
		}
		if o.Flag.Short != "" {
			short := append([]string{"-" + o.Flag.Short}, args[1:]...)
			if st, _, err := parseArgs(short); err != nil || !reflect.DeepEqual(st.Given[o.Key], want) && o.Kind != options.Names {
				t.Errorf("%s: %v, %v", strings.Join(short, " "), st.Given[o.Key], err)
			}
		}
	}
	if st, _, _ := parseArgs([]string{"--no-box=false"}); st.Given["box"] != true {
		t.Errorf("--no-box=false: box %v, want true", st.Given["box"])
	}
	if st, _, _ := parseArgs(nil); len(st.Given) != 1 || st.Given["format"] != "text" {
		t.Errorf("no flags: given %v, want the format alone (text)", st.Given)
	}
}

// --help lists every flag of the table under its section's heading, with
// its whole help, and no other flag; what the help says of defaults and
// ranges is the table's.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, s := range options.Sections {
		if sectionTitles[s] == "" {
			t.Errorf("section %s has no heading", s)
		}
	}
	for _, o := range flagRows() {
		entry := "\n  " + fmt.Sprintf("%-24s", o.Flag.Spec()) + strings.ReplaceAll(o.Flag.Help, "\n", "\n"+strings.Repeat(" ", 26)) + "\n"
		entry = strings.Replace(entry, "FAIL-ON-KINDS", wrapList(failOnNames(), 48, 68, 26), 1)
		at := strings.Index(usageText, entry)
		if at < 0 {
			t.Errorf("--help lacks %s as\n%s", o.Flag.Spec(), entry)
			continue
		}
		heading := strings.LastIndex(usageText[:at], "\n\n")
		if title := sectionTitles[o.Flag.Section]; !strings.HasPrefix(usageText[heading+2:], title) {
			t.Errorf("%s is not under %q", o.Flag.Spec(), title)
		}
		for _, m := range optionstest.For(o).Mismatches(o.Flag.Help) {
			t.Errorf("--help of %s %s", o.Flag.Spec(), m)
		}
	}
	lines := regexp.MustCompile(`(?m)^  -`).FindAllString(usageText, -1)
	if len(lines) != len(flagRows()) {
		t.Errorf("--help lists %d flags, the table has %d", len(lines), len(flagRows()))
	}
}

// outOfRange is a value just out of r.
func outOfRange(r options.Option) int {
	v := r.Range.Min - 1
	if v == 0 && r.Range.Zero != "" {
		v = -1
	}
	return v
}

// A value out of a setting's range is refused naming the setting as it was
// written, a flag or a key of the config file, and the table's range.
func TestOutOfRangeNamesTheFlagOrKey(t *testing.T) {
	dir := t.TempDir()
	for i, o := range options.All() {
		if o.Range == nil || (o.Flag.Name == "" && o.Config == "") {
			continue
		}
		v := outOfRange(o)
		why := o.Range.Check(v)
		flagArgs, keyValue, fromFlag, fromFile := []string{"--" + o.Flag.Name, fmt.Sprint(v)},
			fmt.Sprintf("%s: %d", o.Config, v), fmt.Sprintf("--%s %d: %s", o.Flag.Name, v, why), fmt.Sprintf("config %s: %d: %s", o.Config, v, why)
		if o.Kind == options.Dimensions {
			flagArgs = []string{"--fail-under-schema", fmt.Sprint(v)}
			keyValue = fmt.Sprintf("%s: {schema: %d}", o.Config, v)
			fromFlag, fromFile = fmt.Sprintf("--fail-under-schema %d: %s", v, why), fmt.Sprintf("config %s: schema: %d: %s", o.Config, v, why)
		}
		if why == "" {
			t.Errorf("%s: %d is in range", o.Key, v)
			continue
		}
		if o.Flag.Name != "" {
			if _, err := buildArgs(append(flagArgs, "--config", os.DevNull, "--", "srv")...); err == nil || err.Error() != fromFlag {
				t.Errorf("%s: %v, want %q", strings.Join(flagArgs, " "), err, fromFlag)
			}
		}
		if o.Config != "" {
			file := filepath.Join(dir, fmt.Sprintf("c%d.yml", i))
			if err := os.WriteFile(file, []byte(keyValue+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := buildArgs("--config", file, "--", "srv"); err == nil || err.Error() != fromFile {
				t.Errorf("%q in the file: %v, want %q", keyValue, err, fromFile)
			}
		}
	}
}

// README.md's table of flags lists exactly the flags of the table, each
// with its value's name, and the table's default and range.
func TestReadmeListsEveryFlag(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rows, ok := strings.Cut(string(b), "\n| flag | default | meaning |\n|---|---|---|\n")
	if !ok {
		t.Fatal("README.md has no table of flags")
	}
	rows, _, _ = strings.Cut(rows, "\n\n")
	listed := map[string]bool{}
	for _, row := range strings.Split(rows, "\n") {
		cells := strings.SplitN(strings.Trim(row, "|"), "|", 3)
		if len(cells) != 3 {
			t.Errorf("README row %q: want 3 cells", row)
			continue
		}
		spec := strings.Trim(strings.TrimSpace(cells[0]), "`")
		name, _, _ := strings.Cut(strings.TrimLeft(spec, "-"), " ")
		o, ok := options.ByFlag(name)
		if !ok {
			t.Errorf("README lists %s, which is no flag of the table", spec)
			continue
		}
		listed[o.Key] = true
		if want := strings.TrimPrefix(o.Flag.Spec(), "-o, --output"); spec != o.Flag.Spec() && "-o"+want != spec {
			t.Errorf("README spells %q, --help %q", spec, o.Flag.Spec())
		}
		def := strings.TrimSpace(cells[1])
		switch {
		case o.Default == false && def != "off", o.Default == true && !strings.HasSuffix(def, " on"):
			t.Errorf("README: %s defaults to %q, the table to %v", spec, def, o.Default)
		case o.Default != nil && o.Kind != options.Bool && !strings.HasPrefix(def, "`"+o.DefaultText()+"`"):
			t.Errorf("README: %s defaults to %q, the table to %s", spec, def, o.DefaultText())
		}
		for _, m := range optionstest.For(o).Mismatches(cells[2]) {
			t.Errorf("README: %s %s", spec, m)
		}
	}
	for _, o := range flagRows() {
		if !listed[o.Key] {
			t.Errorf("README does not list %s", o.Flag.Spec())
		}
	}
}

// README.md's example of the configuration file names every key the file
// takes (the keys of the table and the file's own sections), set or listed
// in a comment.
func TestReadmeConfigExampleNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Configuration file\n")
	if !ok {
		t.Fatal("README.md has no section on the configuration file")
	}
	_, example, ok := strings.Cut(section, "\n```yaml\n")
	if !ok {
		t.Fatal("README.md's configuration section has no YAML example")
	}
	example, _, _ = strings.Cut(example, "\n```\n")
	// A key is named where it is set (key: at the start of a line) or in
	// a comment's list of keys.
	words := map[string]bool{}
	for _, line := range strings.Split(example, "\n") {
		code, comment, _ := strings.Cut(line, "#")
		if key, _, ok := strings.Cut(strings.TrimSpace(code), ":"); ok {
			words[strings.TrimPrefix(key, "- ")] = true
		}
		for _, w := range regexp.MustCompile(`[a-z][a-z-]*`).FindAllString(comment, -1) {
			words[w] = true
		}
	}
	for _, key := range options.ConfigKeys() {
		if !words[key] {
			t.Errorf("README's configuration example does not name the key %q", key)
		}
	}
}
