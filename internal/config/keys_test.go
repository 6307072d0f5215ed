package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
)

// sample is a value of each kind as a config file writes it, and what it
// reads as.
var sample = map[options.Kind]struct {
	yaml string
	want any
}{
	options.Bool:       {"true", true},
	options.Int:        {"7", 7},
	options.Int64:      {"9", int64(9)},
	options.Duration:   {"2.5", 2500 * time.Millisecond},
	options.Size:       {"512KiB", "512KiB"},
	options.String:     {"x", "x"},
	options.Path:       {"some/file", "some/file"},
	options.Lines:      {"{B: two, A: one}", []string{"A=one", "B=two"}},
	options.Names:      {"a, b", []string{"a", "b"}},
	options.List:       {"[a, b]", []string{"a", "b"}},
	options.Dimensions: {"{robustness: 90}", map[string]int{"robustness": 90}},
}

// The file takes exactly the keys of the table's settings that have one,
// each read by its kind into Values under the setting's key; any other
// key, a flag's or an input's name among them, is unknown, with the
// nearest keys of the table suggested.
func TestKeysAreTheTables(t *testing.T) {
	keys := map[string]bool{}
	for _, o := range options.All() {
		keys[o.Config] = true
		if o.Config == "" || o.Kind == options.FileSection {
			continue
		}
		s, ok := sample[o.Kind]
		if !ok {
			t.Errorf("%s: no sample of its kind", o.Key)
			continue
		}
		f, err := Parse([]byte(o.Config + ": " + s.yaml + "\n"))
		if err != nil {
			t.Errorf("%s: %v", o.Config, err)
			continue
		}
		if got := f.Values[o.Key]; !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: read %#v, want %#v under %q", o.Config, got, s.want, o.Key)
		}
		if f, err := Parse([]byte(o.Config + ": ~\n")); err != nil || len(f.Values) > 0 {
			t.Errorf("%s: null reads as %v, %v; want nothing set", o.Config, f.Values, err)
		}
	}
	for _, o := range options.All() {
		for _, name := range []string{o.Key, o.Flag.Name, o.Input.Name} {
			if name == "" || keys[name] {
				continue
			}
			_, err := Parse([]byte("cases: 1\n" + name + ": x\n"))
			if want := `unknown key "` + name + `" on line 2`; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s in the file: %v, want %q", name, err, want)
			}
		}
	}
	if _, err := Parse([]byte("secret: [A]\n")); err == nil || !strings.HasSuffix(err.Error(), `unknown key "secret" on line 1; did you mean "secrets"?`) {
		t.Errorf("secret: %v, want the table's key suggested", err)
	}
	if _, err := Parse([]byte("box: maybe\n")); err == nil || !strings.Contains(err.Error(), "line 1: key \"box\": want true or false, got a string `maybe`") {
		t.Errorf("box: maybe: %v", err)
	}
}

// Several wrong keys are said in the file's order, whichever part of the
// file reads them.
func TestErrorsInFileOrder(t *testing.T) {
	_, err := Parse([]byte("per-tool:\n  x:\n    skip: maybe\ncases: lots\nbogus: 1\nexpected:\n  - idd: a\n"))
	want := `invalid configuration: line 3: key "per-tool.x.skip": want true or false, got a string ` + "`maybe`" +
		`; line 4: key "cases": want a whole number, got a string ` + "`lots`" +
		`; unknown key "bogus" on line 5; unknown key "expected.idd" on line 7; did you mean "id"?`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A mapping merged in (<<: *anchor) sets settings as the decoder merges
// it: the file's own keys win.
func TestMergedSettings(t *testing.T) {
	f, err := Parse([]byte("x-base: &base {cases: 3, seed: 4}\n<<: *base\nseed: 5\n"))
	if err == nil {
		t.Fatalf("x-base is no key, yet %v", f.Values)
	}
	f, err = Parse([]byte("per-tool:\n  a: &t {timeout: 2s}\n<<: {cases: 3, seed: 4}\nseed: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Values["cases"] != 3 || f.Values["seed"] != int64(5) || f.PerTool["a"].Timeout.Duration != 2*time.Second {
		t.Errorf("values %v, per-tool %v", f.Values, f.PerTool)
	}
}
