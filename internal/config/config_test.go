package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
)

func TestParse(t *testing.T) {
	f, err := Parse([]byte(`
timeout: 30
startup-timeout: 2m
cases: 0
fail-on: [crash, hang]
per-tool:
  search:
    example: {query: invoices, limit: 5}
    timeout: 45s
  delete_item:
    include: true
expected:
  - id: search/extra_property
    reason: extra keys are ignored on purpose
`))
	if err != nil {
		t.Fatal(err)
	}
	timeout, _ := options.Get[time.Duration](f.Values, "timeout")
	startup, _ := options.Get[time.Duration](f.Values, "startup-timeout")
	if timeout != 30*time.Second || startup != 2*time.Minute {
		t.Errorf("durations = %v, %v", timeout, startup)
	}
	if cases, ok := options.Get[int](f.Values, "cases"); !ok || cases != 0 {
		t.Errorf("cases = %v, want an explicit 0", f.Values["cases"])
	}
	if f.PerTool["search"].Example["query"] != "invoices" || f.PerTool["search"].Timeout.Duration != 45*time.Second || !f.PerTool["delete_item"].Include {
		t.Errorf("per-tool = %+v", f.PerTool)
	}
	if len(f.Expected) != 1 || f.Expected[0].Reason == "" {
		t.Errorf("expected = %+v", f.Expected)
	}
}

func TestParseErrorsNameKeyAndLine(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"cases: 5\nper_tool: {}\n", `unknown key "per_tool" on line 2; did you mean "per-tool"?`},
		{"cases: 5\ntimeuot: 3\n", `unknown key "timeuot" on line 2; did you mean "timeout"?`},
		{"per-tool:\n  x:\n    exampel: {}\n", `unknown key "per-tool.x.exampel" on line 3; did you mean "example"?`},
		{"expected:\n  - id: a\n    reson: b\n", `unknown key "expected.reson" on line 3; did you mean "reason"?`},
		{"cases: 5\nzzzzzz: 1\n", `unknown key "zzzzzz" on line 2`},
		// The decoder numbers its parser's errors from 0 (or names the
		// enclosing block's line): the problem is on line 2 in each.
		{"cases: 5\n- x\n", "yaml: line 2: did not find expected key"},
		{"cases: 5\ntimeout: [1, 2\n", "yaml: line 2: did not find expected ',' or ']'"},
		{"tools: [a,\n  b]\nseed: {a: 1\n", "yaml: line 3: did not find expected ',' or '}'"},
		{"cases: 5\nseed: *x\n", "yaml: line 2: unknown anchor 'x' referenced"},
		{"cases: 5\n\tfoo: 1\n", "yaml: line 2: found a tab character"},
		// An unclosed quote: the line it opens on, and what happened.
		{"cases: 5\nper-tool:\n  x:\n    example:\n      q: \"open\n  y:\n    skip: true\n",
			"yaml: line 5: found unexpected end of stream (a quoted string that starts on this line is never closed)"},
		{"cases: 5\nprofile: 'abc\n", "yaml: line 2: found unexpected end of stream (a quoted string"},
		{"seed: 1\ncases: lots\n", "line 2: key \"cases\": want a whole number, got a string `lots`"},
		// Go's types stay out of the message.
		{"- a\n- b\n", "line 1: want a mapping (key: value), got a list"},
		{"per-tool:\n  - echo\n", `line 2: key "per-tool": want a mapping (key: value), got a list`},
		{"env:\n  A: [1]\n", `line 2: key "env": want a string, got a list`},
		{"fail-under-dimensions:\n  schema: high\n", "want a whole number, got a string `high`"},
		{"per-tool:\n  x:\n    skip: maybe\n", `line 3: key "per-tool.x.skip"`},
		{"per-tool:\n  x:\n    timeout: soon\n", `line 3: "soon" is not a duration`},
		{"timeout: -5\n", "must be positive"},
		// Durations are read as flags read them: a millisecond to a year,
		// never a float that overflows into a negative or huge value.
		{"timeout: 9e9\n", `line 1: duration "9e9": want at most a year`},
		{"timeout: 1e300\n", `line 1: duration "1e300": want at most a year`},
		{"timeout: .inf\n", `line 1: duration ".inf": want seconds or a duration`},
		{"timeout: .nan\n", `line 1: duration ".nan": want seconds or a duration`},
		{"timeout: 0.0000001\n", `line 1: duration "0.0000001": want at least 1ms`},
		{"per-tool:\n  x:\n    timeout: 9000h\n", `line 3: duration "9000h": want at most a year`},
		{"per-tool:\n  x: {skip: true, include: true}\n", "skip and include both set"},
		{"expected:\n  - id: a/valid\n", "needs both id and reason"},
	} {
		_, err := Parse([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

func TestEmptyFileIsZeroConfig(t *testing.T) {
	f, err := Parse(nil)
	if err != nil || f == nil || f.Values.Has("cases") {
		t.Fatalf("Parse(empty) = %+v, %v", f, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("cases: 5\nper-tool: {a: {example: {x: 1}}}\n"))
	f.Add([]byte("expected: [{id: x, reason: y}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Parse(b) // must not panic
	})
}

// A value of the wrong type may be a secret: errors quote its start only.
func TestTypeErrorsQuoteValuesShort(t *testing.T) {
	for _, src := range []string{
		"env:\n  API_TOKEN: !!int tok-canary-1234567890\n",
		"cases: tok-canary-1234567890\n",
	} {
		_, err := Parse([]byte(src))
		if err == nil || strings.Contains(err.Error(), "canary") {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestListsTakeAStringToo: fail-on and the other name lists read a YAML
// sequence or one comma-separated string, as the flags take them.
func TestListsTakeAStringToo(t *testing.T) {
	f, err := Parse([]byte("fail-on: none\ntools: 'get_*, list_*'\nskip-tools: [a, b]\npass-env: HOME\nsecrets: ''\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"fail-on", f.Values.List("fail-on"), []string{"none"}},
		{"tools", f.Values.List("tools"), []string{"get_*", "list_*"}},
		{"skip-tools", f.Values.List("skip-tools"), []string{"a", "b"}},
		{"pass-env", f.Values.List("pass-env"), []string{"HOME"}},
		{"secrets", f.Values.List("secret"), nil},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if _, err := Parse([]byte("fail-on: {crash: true}\n")); err == nil || !strings.Contains(err.Error(), "want a list of names or one comma-separated string") {
		t.Errorf("a map for fail-on: %v", err)
	}
}
