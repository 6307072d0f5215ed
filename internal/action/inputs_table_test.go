package action

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
)

// sampleInput is a value of the input of o and what its setting reads
// from it; ws is the workspace, where relative paths start.
func sampleInput(o options.Option, ws string) (in string, want any) {
	switch o.Kind {
	case options.Bool:
		return "true", true
	case options.Int:
		return " 7", 7
	case options.Int64:
		return "9", int64(9)
	case options.Duration:
		return "2.5", 2500 * time.Millisecond
	case options.Path:
		return "some/file", filepath.Join(ws, "some", "file")
	case options.Lines:
		return "a,b\n\nc\n", []string{"a,b", "c"}
	case options.Names, options.List:
		return "a, b\nc", []string{"a", "b", "c"}
	}
	if o.Values != nil {
		return o.Values[len(o.Values)-1], o.Values[len(o.Values)-1]
	}
	return "x", "x"
}

// Each input of the table is read by its setting's kind into the audit's
// settings under the setting's key, or, for the Action's own, into its
// settings.
func TestInputsAreReadByKind(t *testing.T) {
	ws := t.TempDir()
	for _, o := range options.All() {
		if o.Input.Name == "" || o.Kind == options.Command || o.Key == "cwd" {
			continue
		}
		v, want := sampleInput(o, ws)
		in := map[string]string{"command": "srv", o.Input.Name: v}
		s, err := readInputs(func(n string) string { return in[n] }, ws)
		if err != nil {
			t.Errorf("input %s %q: %v", o.Input.Name, v, err)
			continue
		}
		got := s.audit.Given[o.Key]
		switch o.Key {
		case "comment":
			got = s.comment
		case "comment-key":
			got = s.commentKey
		case "github-token":
			got = s.token
		case "sarif":
			got = s.sarif
		case "report":
			got = s.report
		}
		if !reflect.DeepEqual(got, want) || !o.Takes(got) {
			t.Errorf("input %s %q: %s = %#v, want %#v", o.Input.Name, v, o.Key, got, want)
		}
	}
	// working-directory is where the server starts, and where relative
	// paths start.
	s, err := readInputs(func(n string) string {
		return map[string]string{"command": "srv", "working-directory": "sub", "baseline": "b.json"}[n]
	}, ws)
	if err != nil || s.audit.Given["cwd"] != filepath.Join(ws, "sub") || s.audit.Given["baseline"] != filepath.Join(ws, "sub", "b.json") {
		t.Errorf("working-directory sub: cwd %v, baseline %v, %v", s.audit.Given["cwd"], s.audit.Given["baseline"], err)
	}
}

// inputNames spells every setting as the Action's users know it: its
// input, else its key in the config file.
func TestInputNamesAreTheTables(t *testing.T) {
	for _, o := range options.All() {
		want := "config " + o.Config
		switch {
		case o.Key == "bearer":
			want = "MCP_FUZZ_BEARER"
		case o.Input.Name != "":
			want = "input " + o.Input.Name
		case o.Config == "":
			want = "config " + o.Key
		}
		if got := inputNames(o.Key); got != want {
			t.Errorf("inputNames(%s) = %q, want %q", o.Key, got, want)
		}
	}
}

// A value out of a setting's range is refused naming the input and the
// table's range; one of the wrong kind says what the input wants.
func TestOutOfRangeInputs(t *testing.T) {
	for _, o := range options.All() {
		if o.Input.Name == "" || o.Range == nil {
			continue
		}
		v := o.Range.Min - 1
		if v == 0 && o.Range.Zero != "" {
			v = -1
		}
		in := map[string]string{"command": "srv", "config": "/dev/null", o.Input.Name: fmt.Sprint(v)}
		s, err := readInputs(func(n string) string { return in[n] }, t.TempDir())
		if err == nil {
			_, err = audit.Build(s.audit, inputNames, func(string) (string, bool) { return "", false })
		}
		if want := fmt.Sprintf("input %s %d: %s", o.Input.Name, v, o.Range.Check(v)); err == nil || err.Error() != want {
			t.Errorf("input %s %d: %v, want %q", o.Input.Name, v, err, want)
		}
	}
	for kind, want := range map[options.Kind]string{options.Bool: "want true or false", options.Int: "want an integer", options.Int64: "want an integer", options.Duration: "want seconds or a duration"} {
		for _, o := range options.All() {
			if o.Input.Name == "" || o.Kind != kind {
				continue
			}
			in := map[string]string{"command": "srv", o.Input.Name: "lots"}
			if _, err := readInputs(func(n string) string { return in[n] }, t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("input %s \"lots\": %s", o.Input.Name, want)) {
				t.Errorf("input %s lots: %v, want %q", o.Input.Name, err, want)
			}
		}
	}
}
