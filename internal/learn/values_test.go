package learn

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExtractValues(t *testing.T) {
	got := func(text string) []string {
		var out []string
		for _, c := range Extract(text) {
			out = append(out, c.Value)
		}
		return out
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Access denied - path outside allowed directories: /x/y not in /tmp/abc, /tmp/def", []string{"/x/y", "/tmp/abc", "/tmp/def"}},
		{`unknown color "grey": expected one of: teal, plum`, []string{"grey", "teal", "plum"}},
		{"Allowed directories:\n/srv/a\n/srv/b", []string{"/srv/a", "/srv/b"}},
		{"see mem://docs/readme and 'quoted value'", []string{"mem://docs/readme", "quoted value"}},
		{"valid values are a | b | c.", []string{"a", "b", "c"}},
		{"Recent tickets: TCK-42 (open), ord_1001, 123e4567-e89b-12d3-a456-426614174000", []string{"TCK-42", "ord_1001", "123e4567-e89b-12d3-a456-426614174000"}},
		{`[{"id":"n-1","title":"x y","path":"/a/b.txt"},{"id":"n-2","count":3}]`, []string{"n-1", "/a/b.txt", "n-2"}},
	} {
		if g := got(tc.text); strings.Join(g, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("Extract(%q) = %q, want %q", tc.text, g, tc.want)
		}
	}
	// A hostile message is bounded: at most MaxValues values from the
	// first MaxText bytes, none longer than MaxValue.
	huge := strings.Repeat("/p"+strings.Repeat("x", 700)+" ", 2000) + strings.Repeat("'v' ", 100000)
	vs := Extract(huge)
	if len(vs) > MaxValues {
		t.Fatalf("%d values from a huge message", len(vs))
	}
	for _, v := range vs {
		if len(v.Value) > MaxValue {
			t.Fatalf("a value of %d bytes", len(v.Value))
		}
	}
}

// FuzzLearnFromText feeds arbitrary server text to what learning reads of
// it: Extract and DirEntries never panic and stay within their
// bounds, and Fill only ever builds a JSON object.
func FuzzLearnFromText(f *testing.F) {
	for _, s := range []string{
		"Access denied - path outside allowed directories: /x not in /tmp/abc, /tmp/def",
		`unknown "x": expected one of: a, b | c or d`,
		"[FILE] a.txt\n[DIR] sub\n[FILE] ../../etc/passwd\n[DIR] ",
		"file:/a\ndir:/b\nmem://x/y 'q' `r`",
		strings.Repeat("'", 10000),
		"\x00\xff/\u202e/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		vs := Extract(text)
		if len(vs) > MaxValues {
			t.Fatalf("%d values", len(vs))
		}
		for _, e := range DirEntries("/root", text) {
			if !strings.HasPrefix(e, "file:/root/") && !strings.HasPrefix(e, "dir:/root/") {
				t.Fatalf("entry %q escapes the listed directory", e)
			}
		}
		base := map[string]any{"path": "README.md"}
		s := Schema{Properties: map[string]Prop{"path": {Type: json.RawMessage(`"string"`)}}, Required: []string{"path"}}
		for _, v := range vs {
			if len(v.Value) > MaxValue {
				t.Fatalf("a value of %d bytes", len(v.Value))
			}
			if args := Fill(base, Targets(s), s, v); args != nil {
				var m map[string]any
				if err := json.Unmarshal(args, &m); err != nil || m == nil {
					t.Fatalf("Fill built %s", args)
				}
			}
		}
	})
}

func TestWant(t *testing.T) {
	for _, tc := range []struct {
		name, errText string
		want          int
	}{
		{"read_file", "EISDIR: illegal operation on a directory", 1},
		{"read_file", "ENOTDIR: not a directory", -1},
		{"list_directory", "", -1},
		{"read_media", "", 1},
		{"get_color", "", 0},
	} {
		if got := Want(tc.name, tc.errText); got != tc.want {
			t.Errorf("Want(%q, %q) = %d, want %d", tc.name, tc.errText, got, tc.want)
		}
	}
}

// Targets are the fillable string properties, the required ones first.
func TestTargets(t *testing.T) {
	str := Prop{Type: json.RawMessage(`"string"`)}
	s := Schema{Properties: map[string]Prop{"path": str, "uri": str, "count": {Type: json.RawMessage(`"integer"`)}, "title": str, "file_id": {Type: json.RawMessage(`["string","null"]`)}}, Required: []string{"uri"}}
	if got, want := strings.Join(Targets(s), ","), "uri,file_id,path"; got != want {
		t.Errorf("Targets = %s, want %s", got, want)
	}
	if Fit("uri", "/a/b") != 2 || Fit("uri", "mem://x") != 0 || Fit("path", "/a") != 0 || Fit("id", "a b") != 1 {
		t.Error("Fit does not rank a URI for a uri and an absolute path for a path first")
	}
}
