package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestFormatsByNameAndPath(t *testing.T) {
	want := []struct{ name, ext string }{
		{"text", ""}, {"json", ".json"}, {"markdown", ".md"}, {"sarif", ".sarif"},
		{"junit", ".xml"}, {"jsonl", ".jsonl"}, {"badge", ".svg"},
	}
	fs := Formats()
	if len(fs) != len(want) {
		t.Fatalf("%d formats, want %d", len(fs), len(want))
	}
	for i, w := range want {
		f := fs[i]
		if f.Name != w.name || f.Ext != w.ext || f.Description == "" {
			t.Errorf("format %d = %q %q %q, want %q %q and a description", i, f.Name, f.Ext, f.Description, w.name, w.ext)
		}
		if got, err := ByName(w.name); err != nil || got.Name != w.name {
			t.Errorf("ByName(%q) = %q, %v", w.name, got.Name, err)
		}
		if w.ext == "" {
			continue
		}
		for _, path := range []string{"out" + w.ext, "dir.d/" + strings.ToUpper("out"+w.ext)} {
			if got, err := ForPath(path); err != nil || got.Name != w.name {
				t.Errorf("ForPath(%q) = %q, %v; want %q", path, got.Name, err, w.name)
			}
		}
	}
	// Formats returns a copy: changing it changes no lookup.
	fs[1].Name = "changed"
	if f, err := ByName("json"); err != nil || f.Ext != ".json" {
		t.Errorf("ByName(json) after changing Formats() = %+v, %v", f, err)
	}
}

func TestFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		what string
		err  error
		want string
	}{
		{"ByName", second(ByName("html")), `unknown format "html" (want text, json, markdown, sarif, junit, jsonl or badge)`},
		{"ForPath", second(ForPath("out.txt")), `unknown extension ".txt" (want .json, .md, .sarif, .xml, .jsonl or .svg)`},
		{"ForPath without extension", second(ForPath("report")), `unknown extension "" (want .json, .md, .sarif, .xml, .jsonl or .svg)`},
		{"MergeByName unknown", second(MergeByName("html")), `unknown format "html" (want json or markdown)`},
		{"MergeByName one report only", second(MergeByName("badge")), `format "badge" cannot hold merged reports (want json or markdown)`},
		{"MergeForPath unknown", second(MergeForPath("out.txt")), `unknown extension ".txt" (want .json or .md)`},
		{"MergeForPath one report only", second(MergeForPath("out.SVG")), `a .svg file cannot hold merged reports (want .json or .md)`},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.what, tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// Each format renders what its renderer does; text is coloured only when
// asked.
func TestFormatRender(t *testing.T) {
	rep := gradedReport()
	var jsonl bytes.Buffer
	if err := JSONL(rep, &jsonl); err != nil {
		t.Fatal(err)
	}
	must := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := map[string][]byte{
		"text":     []byte(TerminalSummary(rep, TerminalOptions{})),
		"json":     must(JSON(rep)),
		"markdown": []byte(Markdown(rep)),
		"sarif":    must(SARIF(rep, SARIFOptions{})),
		"junit":    must(JUnit(rep)),
		"jsonl":    jsonl.Bytes(),
		"badge":    BadgeSVG(rep),
	}
	for _, f := range Formats() {
		if got := must(f.Render(rep, Options{})); !bytes.Equal(got, want[f.Name]) {
			t.Errorf("%s: Render differs from its renderer", f.Name)
		}
		coloured := must(f.Render(rep, Options{Colour: true}))
		if f.Name == "text" {
			if !bytes.Equal(coloured, []byte(TerminalSummary(rep, TerminalOptions{Colour: true}))) {
				t.Error("text: Render with Colour is not the coloured terminal summary")
			}
			o := Options{Colour: true, Width: 80, Outputs: []string{"r.md"}}
			if got := must(f.Render(rep, o)); !bytes.Equal(got, []byte(TerminalSummary(rep, TerminalOptions{Colour: true, Width: 80, Outputs: []string{"r.md"}}))) {
				t.Error("text: Render does not pass the width and outputs on")
			}
			o.Verbose = true
			if got := must(f.Render(rep, o)); !bytes.Equal(got, []byte(Terminal(rep, true))) {
				t.Error("text: Render with Verbose is not the full terminal output")
			}
		} else if !bytes.Equal(coloured, want[f.Name]) {
			t.Errorf("%s: Colour changes a format that has none", f.Name)
		}
	}
}

func TestFormatMerge(t *testing.T) {
	reps := []*report.Report{gradedReport(), ungradedReport()}
	md, err := MergeByName("markdown")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := md.Merge(reps); err != nil || string(b) != MergedMarkdown(reps) {
		t.Errorf("markdown Merge = %v, differs from MergedMarkdown", err)
	}
	js, err := MergeForPath("all.json")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := MergedJSON(reps)
	if b, err := js.Merge(reps); err != nil || !bytes.Equal(b, want) {
		t.Errorf("json Merge = %v, differs from MergedJSON", err)
	}
	for _, f := range Formats() {
		if f.CanMerge() != (f.Name == "json" || f.Name == "markdown") {
			t.Errorf("%s: CanMerge = %v", f.Name, f.CanMerge())
		}
		if _, err := f.Merge(reps); (err == nil) != f.CanMerge() {
			t.Errorf("%s: Merge error %v, CanMerge %v", f.Name, err, f.CanMerge())
		}
	}
}
