package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// flawsByTool maps each tool to the security flaws its cases proved.
func flawsByTool(rep *report.Report) map[string][]string {
	out := map[string][]string{}
	for _, tl := range rep.Tools {
		for _, c := range tl.Cases {
			for _, f := range c.Flags {
				if code, ok := report.LookupCode(f); ok && code.Exploit && !slices.Contains(out[tl.Name], f) {
					out[tl.Name] = append(out[tl.Name], f)
				}
			}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// provedCases are the cases that proved a security flaw.
func provedCases(rep *report.Report) []report.Case {
	var out []report.Case
	for _, c := range cases(rep) {
		for _, f := range c.Flags {
			if code, ok := report.LookupCode(f); ok && code.Exploit {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func TestSecurityFlawsOfVulnTools(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "vuln-tools", func(c *Config) {
		c.Command = append(c.Command, "-root", "{scratch}")
		c.Timeout = 8 * time.Second
		c.NoSecurity = false
	})
	want := map[string][]string{
		"read_file":  {report.FlagPathTraversal},
		"read_note":  {report.FlagPathTraversal},
		"open_doc":   {report.FlagPathTraversal},
		"ping_host":  {report.FlagCommandInjection},
		"fetch_url":  {report.FlagSSRF},
		"sort_lines": {report.FlagCommandInjection, report.FlagPathTraversal},
	}
	got := flawsByTool(rep)
	for tool, flaws := range want {
		if !slices.Equal(got[tool], flaws) {
			t.Errorf("%s: flaws %v, want %v", tool, got[tool], flaws)
		}
	}
	// Each flaw by the payload that should show it.
	ids := map[string]bool{}
	for _, c := range provedCases(rep) {
		ids[c.ID] = true
		if !strings.Contains(c.Detail, "proved:") {
			t.Errorf("%s: detail %q does not give the evidence", c.ID, c.Detail)
		}
	}
	for _, id := range []string{
		"read_file/security/path#path_traversal.dotdot",
		"read_file/security/path#path_traversal.absolute",
		"read_note/security/name#path_traversal.sibling",
		"open_doc/security/path#path_traversal.symlink",
		"ping_host/security/host#command_injection.semicolon",
		"ping_host/security/host#command_injection.subshell",
		"fetch_url/security/url#ssrf.loopback",
		"sort_lines/security/file#command_injection.option_short",
		"sort_lines/security/file#command_injection.option_long",
	} {
		if !ids[id] {
			t.Errorf("case %s proved nothing; proved: %v", id, slices.Sorted(func(yield func(string) bool) {
				for k := range ids {
					if !yield(k) {
						return
					}
				}
			}))
		}
	}
	// The open_doc tool resolves '..' properly: only the symlink reaches out.
	for id := range ids {
		if strings.HasPrefix(id, "open_doc/") && !strings.HasSuffix(id, ".symlink") {
			t.Errorf("open_doc: %s proved a flaw it does not have", id)
		}
	}
	if rep.Grade == nil || *rep.Grade != "F" {
		t.Errorf("grade %v, want F for a proved flaw (caps %+v)", rep.Grade, rep.Caps)
	}
	codes := map[string]bool{}
	for _, f := range rep.Findings {
		codes[f.Code] = true
		if f.Code == report.FlagPathTraversal && f.Severity != report.SeverityCritical {
			t.Errorf("finding %s severity %s", f.ID, f.Severity)
		}
	}
	for _, c := range []string{report.FlagPathTraversal, report.FlagCommandInjection, report.FlagSSRF} {
		if !codes[c] {
			t.Errorf("no %s finding", c)
		}
	}
	if rep.Scratch == nil || len(rep.Scratch.Canaries) != 4 {
		t.Fatalf("report's scratch area: %+v", rep.Scratch)
	}
	if _, err := os.Stat(rep.Scratch.Dir); !os.IsNotExist(err) {
		t.Errorf("scratch area %s left behind: %v", rep.Scratch.Dir, err)
	}
}

func TestSecurityCleanTwinOfVulnTools(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "vuln-tools", func(c *Config) {
		c.Command = append(c.Command, "-root", "{scratch}", "-fixed")
		c.Timeout = 8 * time.Second
		c.NoSecurity = false
	})
	if got := flawsByTool(rep); len(got) != 0 {
		t.Errorf("the fixed twin has flaws: %v", got)
	}
	n := 0
	for _, c := range cases(rep) {
		if c.Kind == report.KindSecurity {
			n++
			if c.Verdict.Failure() {
				t.Errorf("%s: %s (%s)", c.ID, c.Verdict, c.Detail)
			}
		}
	}
	if n < 30 {
		t.Errorf("%d security cases on seven tools with string properties", n)
	}
}

func TestSecurityOff(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "vuln-tools", func(c *Config) {
		c.Command = append(c.Command, "-root", "{scratch}")
		c.NoSecurity = true
		c.Tools = []string{"read_file"}
	})
	for _, c := range cases(rep) {
		if c.Kind == report.KindSecurity {
			t.Fatalf("a security case with NoSecurity: %s", c.ID)
		}
	}
	if rep.Scratch == nil || rep.Target.Args[len(rep.Target.Args)-1] != rep.Scratch.Dir {
		t.Errorf("{scratch} not replaced without the security cases: %v, %+v", rep.Target.Args, rep.Scratch)
	}
	// A working directory in the scratch area is made for the server.
	rep = runFixture(t, "vuln-tools", func(c *Config) {
		c.Command = append(c.Command, "-root", ".")
		c.Cwd = "{scratch}/files"
		c.Tools = []string{"read_file"}
	})
	if rep.Target.Cwd != filepath.Join(rep.Scratch.Dir, "files") || !rep.Tools[slices.IndexFunc(rep.Tools, func(t report.Tool) bool { return t.Name == "read_file" })].Tested {
		t.Errorf("cwd %q, scratch %q", rep.Target.Cwd, rep.Scratch.Dir)
	}
}

// vulnDB returns the command of the Python fixture, skipping the test
// where python3 is missing.
func vulnDB(t *testing.T, args ...string) []string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "pyservers", "vuln_db.py")
	return append([]string{py, script}, args...)
}

func TestSecurityFlawsOfVulnDB(t *testing.T) {
	parallel(t)
	for _, fixed := range []bool{false, true} {
		var args []string
		if fixed {
			args = append(args, "--fixed")
		}
		cmd := vulnDB(t, args...)
		rep := runFixture(t, "clean", func(c *Config) { c.Command, c.NoSecurity = cmd, false })
		got := flawsByTool(rep)
		want := map[string][]string{"find_user": {report.FlagSQLInjection}, "calculate": {report.FlagCodeInjection}}
		if fixed {
			want = map[string][]string{}
		}
		if len(got) != len(want) {
			t.Errorf("fixed=%v: flaws %v, want %v", fixed, got, want)
		}
		for tool, flaws := range want {
			if !slices.Equal(got[tool], flaws) {
				t.Errorf("fixed=%v: %s flaws %v, want %v", fixed, tool, got[tool], flaws)
			}
		}
		if !fixed {
			ids := map[string]bool{}
			for _, c := range provedCases(rep) {
				ids[c.ID] = true
			}
			for _, id := range []string{"find_user/security/name#sql_injection.or_true", "calculate/security/expression#code_injection.python"} {
				if !ids[id] {
					t.Errorf("case %s proved nothing; proved %v", id, ids)
				}
			}
		}
	}
}

// A tool that changes once it has been called is reported from the
// listing made after the tools ran; a server whose listings never change
// is not.
func TestRugPull(t *testing.T) {
	parallel(t)
	changed := func(rep *report.Report) []report.Lint {
		var out []report.Lint
		for _, l := range rep.Lint {
			if l.Code == "tool_changed" {
				out = append(out, l)
			}
		}
		return out
	}
	rep := runFixture(t, "hostile-rug-pull", nil)
	got := changed(rep)
	if len(got) == 0 {
		t.Fatal("no tool_changed for a tool whose description changed after a call")
	}
	var fields []string
	for _, l := range got {
		if l.Tool != "get_quote" || l.Severity != report.SeverityError {
			t.Errorf("lint %+v", l)
		}
		fields = append(fields, l.Pointer)
	}
	if !slices.ContainsFunc(rep.Lint, func(l report.Lint) bool {
		return l.Code == "model_directed_text" && l.Tool == "get_quote" && strings.Contains(l.Message, "listed again")
	}) {
		t.Errorf("the poisoned description of the second listing was not linted: %+v", rep.Lint)
	}
	if !slices.ContainsFunc(fields, func(p string) bool { return strings.HasPrefix(p, "/description") }) ||
		!slices.ContainsFunc(fields, func(p string) bool { return strings.HasPrefix(p, "/inputSchema") }) {
		t.Errorf("pointers %v: want the description and the input schema", fields)
	}
	if got := changed(runFixture(t, "clean", nil)); len(got) != 0 {
		t.Errorf("the clean twin: %+v", got)
	}
	// A list that grows as tools.listChanged allows is no rug pull.
	if got := changed(runFixture(t, "hostile-rug-pull", func(c *Config) { c.Command = append(c.Command, "-grow") })); len(got) != 0 {
		t.Errorf("a tool added by a server that declares listChanged: %+v", got)
	}
}
