package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

func noEnv(string) (string, bool) { return "", false }

// inputName spells keys as an Action would, to show that messages follow the
// front end.
func inputName(key string) string { return "input " + key }

func TestBuildDefaults(t *testing.T) {
	t.Parallel()
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": os.DevNull}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c := o.Engine
	if c.Timeout != engine.DefaultTimeout || c.StartupTimeout != engine.DefaultStartupTimeout ||
		c.Cases != engine.DefaultCases || c.Seed != engine.DefaultSeed || c.Profile != "default" ||
		c.MaxResponse != engine.DefaultMaxResponse || c.MaxHangs != engine.DefaultMaxHangs || c.Parallel != 1 ||
		c.SlowMs != engine.DefaultSlowMs || c.BloatChars != engine.DefaultBloatChars || c.IncludeDestructive {
		t.Errorf("defaults: %+v", c)
	}
	if o.Gates.FailUnder != nil || o.Gates.Baseline != nil || !o.Gates.Default ||
		!slices.Equal(o.Gates.FailOn, []string{"command_injection", "code_injection", "sql_injection", "path_traversal", "ssrf", "crash", "hang", "protocol_violation", "leak"}) {
		t.Errorf("gates without settings: %+v, want the default gate fail-on security,crash,hang,protocol,leak", o.Gates)
	}
}

// TestBuildDefaultGate checks when the default gate applies: only when no
// gate of any kind is set, by the front end or the config file.
func TestBuildDefaultGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if err := os.WriteFile(base, []byte(`{"version":"x","findings":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	withFile := func(body string) string {
		p := filepath.Join(dir, fmt.Sprintf("c%d.yml", len(body)))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eighty := 80
	defaultGate := []string{"command_injection", "code_injection", "sql_injection", "path_traversal", "ssrf", "crash", "hang", "protocol_violation", "leak"}
	tests := []struct {
		name        string
		st          Settings
		failOn      []string
		def, newOne bool
	}{
		{"nothing set", Settings{}, defaultGate, true, false},
		{"fail-on none", Settings{Given: options.Values{"fail-on": []string{"none"}}}, nil, false, false},
		{"fail-on NONE from the file", Settings{Given: options.Values{"config": withFile("fail-on: [NONE]\n")}}, nil, false, false},
		{"fail-on accepted only", Settings{Given: options.Values{"fail-on": []string{"accepted"}}}, []string{"accepted"}, false, false},
		{"fail-under only", Settings{Given: options.Values{"fail-under": eighty}}, nil, false, false},
		{"a dimension floor only", Settings{Given: options.Values{"fail-under-dimensions": map[string]int{"robustness": 90}}}, nil, false, false},
		{"a dimension floor in the file", Settings{Given: options.Values{"config": withFile("fail-under-dimensions: {validation: 50}\n")}}, nil, false, false},
		{"baseline alone: new findings only", Settings{Given: options.Values{"baseline": base}}, nil, false, true},
		{"baseline with kinds: new findings of those kinds", Settings{Given: options.Values{"baseline": base, "fail-on": []string{"crash"}}}, []string{"crash"}, false, true},
		{"the demo", Settings{NoDefaultGate: true}, nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Command = []string{"srv"}
			tc.st.Given = tc.st.Given.Clone()
			if !tc.st.Given.Has("config") {
				tc.st.Given.Set("config", os.DevNull)
			}
			o, err := Build(tc.st, FlagNames, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			g := o.Gates
			if !slices.Equal(g.FailOn, tc.failOn) || g.Default != tc.def || g.FailOnNew != tc.newOne {
				t.Errorf("gates %+v: want fail-on %v, default %v, new only %v", g, tc.failOn, tc.def, tc.newOne)
			}
		})
	}
	for _, st := range []Settings{{Given: options.Values{"baseline": base}}, {Given: options.Values{"baseline": base, "fail-on-new": true}}} {
		st.Command = []string{"srv"}
		st.Given.Set("config", os.DevNull)
		st.Given.Set("fail-on", []string{"none"})
		if _, err := Build(st, FlagNames, noEnv); err == nil || !strings.Contains(err.Error(), "--fail-on none turns every finding gate off, so --baseline has nothing to filter") {
			t.Errorf("none with a baseline: %v", err)
		}
	}
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": os.DevNull, "fail-under": eighty}}, FlagNames, noEnv)
	if err != nil || o.defaultReplacedBy != "--fail-under" {
		t.Errorf("fail-under alone: replaced by %q (%v), want --fail-under", o.defaultReplacedBy, err)
	}
	o, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": withFile("fail-under: 70\n")}}, FlagNames, noEnv)
	if err != nil || o.defaultReplacedBy != "config fail-under" {
		t.Errorf("config fail-under alone: replaced by %q (%v), want config fail-under", o.defaultReplacedBy, err)
	}
	o, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": os.DevNull, "fail-under": eighty, "fail-on": []string{"none"}}}, FlagNames, noEnv)
	if err != nil || o.defaultReplacedBy != "" {
		t.Errorf("fail-under with fail-on none: replaced by %q (%v), want nothing to say", o.defaultReplacedBy, err)
	}
	_, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": os.DevNull, "fail-on": []string{"none", "crash"}}}, FlagNames, noEnv)
	if err == nil || !strings.Contains(err.Error(), `--fail-on: "none" turns every finding gate off and cannot be combined`) {
		t.Errorf("none with crash: %v", err)
	}
}

func TestBuildZeroMeansUnlimited(t *testing.T) {
	t.Parallel()
	zero := 0
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"cases": zero, "max-hangs": zero, "config": os.DevNull}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if o.Engine.Cases >= 0 || o.Engine.MaxHangs >= 0 {
		t.Errorf("cases %d, max-hangs %d: want the engine's negative 'no limit'", o.Engine.Cases, o.Engine.MaxHangs)
	}
}

func TestBuildBearerFromTheEnvironment(t *testing.T) {
	t.Parallel()
	env := func(k string) (string, bool) { return "tok-from-env", k == "MCP_FUZZ_BEARER" }
	o, err := Build(Settings{Given: options.Values{"url": "http://127.0.0.1:9/mcp", "config": os.DevNull}}, FlagNames, env)
	if err != nil || o.Engine.Bearer != "tok-from-env" {
		t.Errorf("bearer %q, %v", o.Engine.Bearer, err)
	}
	o, err = Build(Settings{Given: options.Values{"url": "http://127.0.0.1:9/mcp", "bearer": "given", "config": os.DevNull}}, FlagNames, env)
	if err != nil || o.Engine.Bearer != "given" {
		t.Errorf("a given bearer loses to the environment: %q, %v", o.Engine.Bearer, err)
	}
}

func TestBuildBearerFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("tok-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) { return "tok-from-env", k == "MCP_FUZZ_BEARER" }
	o, err := Build(Settings{Given: options.Values{"url": "http://127.0.0.1:9/mcp", "bearer-file": file, "config": os.DevNull}}, FlagNames, env)
	if err != nil || o.Engine.Bearer != "tok-from-file" {
		t.Errorf("bearer %q, %v; want the file's, without its newline, over the environment's", o.Engine.Bearer, err)
	}
	if _, err := Build(Settings{Given: options.Values{"url": "http://127.0.0.1:9/mcp", "bearer": "given", "bearer-file": file, "config": os.DevNull}}, FlagNames, env); err == nil || strings.Contains(err.Error(), "tok-") {
		t.Errorf("--bearer with --bearer-file: %v, want an error without the tokens", err)
	}
	// Spaces around the token and a "Bearer " of its own are not the token.
	if err := os.WriteFile(file, []byte("  Bearer  tok-spaced \r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if o, err := Build(Settings{Given: options.Values{"url": "http://127.0.0.1:9/mcp", "bearer-file": file, "config": os.DevNull}}, FlagNames, nil); err != nil || o.Engine.Bearer != "tok-spaced" {
		t.Errorf("bearer %q, %v; want tok-spaced", o.Engine.Bearer, err)
	}
}

func TestBuildConfigFileUnderSettings(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "c.yml")
	body := `timeout: 3s
seed: 9
cases: 7
parallel: 3
skip-tools: [from_file]
env:
  B_FILE: two
  A_FILE: one
fail-on: [hang]
per-tool:
  lookup:
    timeout: 9s
    example: {q: x}
  rm:
    skip: true
expected:
  - id: lookup/valid#errored
    reason: needs a database
`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	seed, timeout := int64(4), 5*time.Second
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": file, "seed": seed, "timeout": timeout, "skip-tools": []string{"from_flag"}, "env": []string{"A_FILE=flag"}, "fail-on": []string{"crash"}}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c := o.Engine
	if c.Seed != 4 || c.Timeout != 5*time.Second {
		t.Errorf("given settings must win: seed %d timeout %v", c.Seed, c.Timeout)
	}
	if c.Cases != 7 || c.Parallel != 3 {
		t.Errorf("the file must fill in what is not given: cases %d parallel %d", c.Cases, c.Parallel)
	}
	if want := []string{"from_flag", "from_file", "rm"}; !slices.Equal(c.SkipTools, want) {
		t.Errorf("skip-tools %v, want %v (lists add up, per-tool skips last)", c.SkipTools, want)
	}
	if want := []string{"A_FILE=one", "B_FILE=two", "A_FILE=flag"}; !slices.Equal(c.Env, want) {
		t.Errorf("env %v, want %v (the given value last, so it wins)", c.Env, want)
	}
	if c.ToolTimeouts["lookup"] != 9*time.Second || c.Examples["lookup"]["q"] != "x" {
		t.Errorf("per-tool: timeouts %v examples %v", c.ToolTimeouts, c.Examples)
	}
	if !slices.Equal(o.Gates.FailOn, []string{"crash"}) {
		t.Errorf("fail-on %v: the given list replaces the file's", o.Gates.FailOn)
	}
	if o.Gates.Expected["lookup/valid#errored"] != "needs a database" {
		t.Errorf("expected: %v", o.Gates.Expected)
	}
}

// TestBuildEraBoth: era both is accepted from the config file, and a
// given era (a flag, an Action input) wins over the file's.
func TestBuildEraBoth(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "c.yml")
	if err := os.WriteFile(file, []byte("era: both\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": file}}, FlagNames, noEnv)
	if err != nil || o.Engine.Era != engine.EraBoth {
		t.Fatalf("era from the file: %q, %v; want both", o.Engine.Era, err)
	}
	o, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": file, "era": engine.EraLegacy}}, FlagNames, noEnv)
	if err != nil || o.Engine.Era != engine.EraLegacy {
		t.Errorf("a given era: %q, %v; want legacy over the file's both", o.Engine.Era, err)
	}
	o, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"era": engine.EraBoth}}, FlagNames, noEnv)
	if err != nil || o.Engine.Era != engine.EraBoth {
		t.Errorf("a given era both: %q, %v", o.Engine.Era, err)
	}
}

func TestBuildErrorsNameTheirSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := 0
	config := func(body string) string {
		files++
		p := filepath.Join(dir, fmt.Sprintf("c%d.yml", files))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	neg, hundredOne, zero := -3, 101, 0
	tests := []struct {
		name string
		s    Settings
		want string
	}{
		{"no target", Settings{}, "no target: give input command or input url"},
		{"both targets", Settings{Command: []string{"x"}, Given: options.Values{"url": "http://h/"}}, "both input command and input url given"},
		{"bad url", Settings{Given: options.Values{"url": "ftp://h/{Env}"}}, `input url "ftp://h/{Env}" is not an http(s) URL`},
		{"bad url with credentials", Settings{Given: options.Values{"url": "ftp://user:s3cret@h/"}}, `is not an http(s) URL`},
		{"unparsable url with credentials", Settings{Given: options.Values{"url": "http://user:s3cret%zz@h/"}}, `input url "http://***@h/" is not an http(s) URL`},
		{"header without url", Settings{Command: []string{"x"}, Given: options.Values{"header": []string{"A: b"}}}, "input header and input bearer apply to input url"},
		{"bad env", Settings{Command: []string{"x"}, Given: options.Values{"env": []string{"NOEQUALS"}}}, `input env "***": want KEY=VALUE`},
		{"bad profile", Settings{Command: []string{"x"}, Given: options.Values{"profile": "wild"}}, `input profile "wild": want default or aggressive`},
		{"bad era", Settings{Command: []string{"x"}, Given: options.Values{"era": "all"}}, `input era "all": want modern, legacy, both or auto`},
		{"config era", Settings{Command: []string{"x"}, Given: options.Values{"config": config("era: new\n")}}, `config era "new": want modern, legacy, both or auto`},
		{"bad protocol-version", Settings{Command: []string{"x"}, Given: options.Values{"protocol-version": "latest"}}, `input protocol-version "latest": want a protocol revision such as 2026-07-28`},
		{"unknown protocol-version", Settings{Command: []string{"x"}, Given: options.Values{"protocol-version": "2025-11-25"}}, `input protocol-version 2025-11-25: mcp-fuzz speaks the stateless era in 2026-07-28`},
		{"negative cases", Settings{Command: []string{"x"}, Given: options.Values{"cases": neg}}, "input cases -3: must be 0 (no limit) or more"},
		{"parallel 0", Settings{Command: []string{"x"}, Given: options.Values{"parallel": zero}}, "input parallel 0: want 1 to 64"},
		{"repeat 0", Settings{Command: []string{"x"}, Given: options.Values{"repeat": zero}}, "input repeat 0: want 1 to 20"},
		{"config repeat", Settings{Command: []string{"x"}, Given: options.Values{"config": config("repeat: 0\n")}}, "config repeat: 0: want 1 to 20"},
		{"small max-response", Settings{Command: []string{"x"}, Given: options.Values{"max-response": "1KiB"}}, "input max-response 1KiB: want 64KiB to 1GiB"},
		{"fail-under 101", Settings{Command: []string{"x"}, Given: options.Values{"fail-under": hundredOne}}, "input fail-under 101: want 0 to 100"},
		{"unknown kind", Settings{Command: []string{"x"}, Given: options.Values{"fail-on": []string{"boom"}}}, `input fail-on: unknown finding kind "boom"`},
		{"unknown dimension", Settings{Command: []string{"x"}, Given: options.Values{"fail-under-dimensions": map[string]int{"speed": 5}}}, "input fail-under-speed: unknown dimension"},
		{"new without baseline", Settings{Command: []string{"x"}, Given: options.Values{"fail-on-new": true}}, "input fail-on-new needs input baseline FILE"},
		{"missing baseline", Settings{Command: []string{"x"}, Given: options.Values{"baseline": filepath.Join(dir, "none.json")}}, "input baseline: " + filepath.Join(dir, "none.json") + ": no such file"},
		{"baseline from a pipe", Settings{Command: []string{"x"}, Given: options.Values{"baseline": "/dev/stdin"}}, "input baseline: /dev/stdin: not a regular file"},
		{"config from a device", Settings{Command: []string{"x"}, Given: options.Values{"config": "/dev/zero"}}, "/dev/zero: not a regular file (a device)"},
		{"config cases", Settings{Command: []string{"x"}, Given: options.Values{"config": config("cases: -1\n")}}, "config cases: -1: must be 0"},
		{"config max-response", Settings{Command: []string{"x"}, Given: options.Values{"config": config("max-response: huge\n")}}, "config max-response: huge: want a size like"},
		{"config fail-under", Settings{Command: []string{"x"}, Given: options.Values{"config": config("fail-under: 300\n")}}, "config fail-under: 300: want 0 to 100"},
		{"config fail-on", Settings{Command: []string{"x"}, Given: options.Values{"config": config("fail-on: [boom]\n")}}, `config fail-on: unknown finding kind "boom"`},
		{"missing config", Settings{Command: []string{"x"}, Given: options.Values{"config": filepath.Join(dir, "nope.yml")}}, "not found"},
		{"config profile", Settings{Command: []string{"x"}, Given: options.Values{"config": config("profile: wild\n")}}, `config profile "wild": want default or aggressive`},
		{"config secrets", Settings{Command: []string{"x"}, Given: options.Values{"config": config("secrets: [A=B]\n")}}, `config secrets "A=B": want the name`},
		{"config tools", Settings{Command: []string{"x"}, Given: options.Values{"config": config("tools: ['[']\n")}}, `config tools pattern "["`},
		{"skip-tools pattern", Settings{Command: []string{"x"}, Given: options.Values{"skip-tools": []string{"["}}}, `input skip-tools pattern "["`},
		{"config slow-ms", Settings{Command: []string{"x"}, Given: options.Values{"config": config("slow-ms: -1\n")}}, "config slow-ms: -1: must be positive"},
		{"bloat-chars 0", Settings{Command: []string{"x"}, Given: options.Values{"bloat-chars": zero}}, "input bloat-chars 0: must be positive"},
		{"config fail-under-dimensions", Settings{Command: []string{"x"}, Given: options.Values{"config": config("fail-under-dimensions: {robustness: 190}\n")}}, "config fail-under-dimensions: robustness: 190: want 0 to 100"},
		{"missing cwd", Settings{Command: []string{"x"}, Given: options.Values{"cwd": filepath.Join(dir, "gone")}}, `input cwd "` + filepath.Join(dir, "gone") + `": not a directory`},
		{"config cwd", Settings{Command: []string{"x"}, Given: options.Values{"config": config("cwd: /no/such/dir\n")}}, `config cwd "/no/such/dir": not a directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Given = tc.s.Given.Clone()
			if !tc.s.Given.Has("config") {
				tc.s.Given.Set("config", os.DevNull)
			}
			_, err := Build(tc.s, inputName, noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the URL's password", err)
			}
			if err != nil && strings.Contains(err.Error(), "--") {
				t.Errorf("error %q speaks in flags to a front end that has none", err)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	err := (engine.Config{URL: "http://h/", Env: []string{"A=1"}}).Validate()
	if !errors.Is(err, engine.ErrConfig) {
		t.Fatalf("Validate: %v, want an ErrConfig", err)
	}
	if got, want := Describe(err, FlagNames), "--env, --pass-env and --cwd apply to a stdio command, not to --url"; got != want {
		t.Errorf("Describe with flag names = %q, want %q", got, want)
	}
	if got := err.Error(); !strings.Contains(got, "Env, PassEnv and Cwd apply to a stdio command, not to URL") {
		t.Errorf("the engine's own message %q should name its fields", got)
	}
	if got := Describe(errors.New("plain"), FlagNames); got != "plain" {
		t.Errorf("Describe of another error = %q", got)
	}
}

// A malformed header or env value may be a secret: its message shows the
// name at most.
func TestMalformedValuesStayOutOfMessages(t *testing.T) {
	t.Parallel()
	const secret = "s3cretvalue99"
	for _, s := range []Settings{
		{Given: options.Values{"url": "http://h/", "header": []string{"Authorization Bearer " + secret}}},
		{Given: options.Values{"url": "http://h/", "header": []string{"X-Key " + secret + ":value"}}},
		{Given: options.Values{"url": "http://h/", "header": []string{secret}}},
		{Command: []string{"x"}, Given: options.Values{"env": []string{"API_TOKEN " + secret}}},
		{Command: []string{"x"}, Given: options.Values{"env": []string{secret}}},
		{Given: options.Values{"url": "ftp://h/?access_token=" + secret}},
	} {
		s.Given.Set("config", os.DevNull)
		_, err := Build(s, inputName, noEnv)
		if err == nil {
			t.Errorf("%+v accepted", s)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("message %q shows the value", err)
		}
	}
}

// A huge value is quoted by its start only.
func TestHugeValuesAreQuotedShort(t *testing.T) {
	t.Parallel()
	_, err := Build(Settings{Command: []string{"x"}, Given: options.Values{"profile": strings.Repeat("w", 1<<20), "config": os.DevNull}}, FlagNames, noEnv)
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "want default or aggressive") {
		t.Errorf("error of %d bytes: %.300v", len(fmt.Sprint(err)), err)
	}
}

// TestBuildNoCalls: the options that choose, repeat or compare calls are
// errors with no-calls when given by the front end or in the file along
// with it; as the file's defaults under a front end's no-calls they yield.
func TestBuildNoCalls(t *testing.T) {
	t.Parallel()
	yes, five := true, 5
	dir := t.TempDir()
	file := func(body string) string {
		p := filepath.Join(dir, fmt.Sprintf("c%d.yml", len(body)))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calling := file("include-destructive: true\ntools: [a]\nskip-tools: [b]\nrepeat: 5\nprotocol: true\nconcurrency: 3\nsequential: true\nper-tool:\n  a:\n    include: true\n")
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"no-calls": yes, "config": calling}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c := o.Engine; !c.NoCalls || c.IncludeDestructive || c.Tools != nil || c.SkipTools != nil || c.AlsoCall != nil || c.Protocol || c.Concurrency != 0 || c.Sequential {
		t.Errorf("the file's selection did not yield: %+v", c)
	}
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Given: options.Values{"no-calls": yes, "repeat": five}}, "input no-calls with input repeat: "},
		{Settings{Given: options.Values{"no-calls": yes, "include-destructive": yes}}, "input no-calls with input include-destructive: "},
		{Settings{Given: options.Values{"no-calls": yes, "tools": []string{"a"}}}, "input no-calls with input tools: "},
		{Settings{Given: options.Values{"no-calls": yes, "skip-tools": []string{"a"}}}, "input no-calls with input skip-tools: "},
		{Settings{Given: options.Values{"no-calls": yes, "era": "both"}}, "input no-calls with input era both: "},
		{Settings{Given: options.Values{"no-calls": yes, "protocol": yes}}, "input no-calls with input protocol: "},
		{Settings{Given: options.Values{"no-calls": yes, "concurrency": five}}, "input no-calls with input concurrency: "},
		{Settings{Given: options.Values{"no-calls": yes, "sequential": yes}}, "input no-calls with input sequential: "},
		{Settings{Given: options.Values{"config": file("no-calls: true\nprotocol: true\n")}}, "config no-calls with config protocol: "},
		{Settings{Given: options.Values{"config": file("no-calls: true\nrepeat: 2\n")}}, "config no-calls with config repeat: "},
		{Settings{Given: options.Values{"config": file("no-calls: true\n"), "tools": []string{"a"}}}, "config no-calls with input tools: "},
		{Settings{Given: options.Values{"no-calls": yes, "config": file("era: both\n")}}, "input no-calls with config era both: "},
	} {
		tc.s.Command = []string{"srv"}
		tc.s.Given = tc.s.Given.Clone()
		if !tc.s.Given.Has("config") {
			tc.s.Given.Set("config", os.DevNull)
		}
		if _, err := Build(tc.s, inputName, noEnv); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q...", tc.s, err, tc.want)
		}
	}
}

// TestBuildNoCallsEngineConflicts: the conflicts of no-calls that the
// engine finds (protocol, concurrency) name the file's keys
// when only the file set them.
func TestBuildNoCallsEngineConflicts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tc := range []struct{ body, want string }{
		{"no-calls: true\nprotocol: true\n", "config no-calls with config protocol: "},
		{"no-calls: true\nconcurrency: 3\n", "config no-calls with config concurrency: "},
	} {
		p := filepath.Join(dir, fmt.Sprintf("c%d.yml", i))
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": p}}, FlagNames, noEnv); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q...", tc.body, err, tc.want)
		}
	}
}

// The SARIF settings: the front end's over the config file's, and the
// config file read (the default one when it exists) for per-tool lines.
func TestBuildSARIF(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yml")
	if err := os.WriteFile(cfg, []byte("sarif-location: pkg/package.json\nsarif-category: from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": cfg}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if want := (SARIF{Location: "pkg/package.json", Category: "from-file", Config: cfg}); o.SARIF != want {
		t.Errorf("from the file: %+v, want %+v", o.SARIF, want)
	}
	o, err = Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": cfg, "sarif-location": "a.json", "sarif-category": "flag"}}, FlagNames, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if o.SARIF.Location != "a.json" || o.SARIF.Category != "flag" {
		t.Errorf("flags over the file: %+v", o.SARIF)
	}
	t.Chdir(dir)
	if o, _ := Build(Settings{Command: []string{"srv"}}, FlagNames, noEnv); o.SARIF.Config != "" {
		t.Errorf("no default config file, yet Config %q", o.SARIF.Config)
	}
	if err := os.WriteFile(".mcp-fuzz.yml", []byte("cases: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if o, _ := Build(Settings{Command: []string{"srv"}}, FlagNames, noEnv); o.SARIF.Config != ".mcp-fuzz.yml" {
		t.Errorf("default config file read, Config %q", o.SARIF.Config)
	}
}

// A working directory of {scratch} is made by the run: it is not looked
// for before it exists.
func TestBuildScratchCwd(t *testing.T) {
	t.Parallel()
	for _, cwd := range []string{"{scratch}", "{scratch}/data"} {
		o, err := Build(Settings{Command: []string{"x"}, Given: options.Values{"config": os.DevNull, "cwd": cwd}}, FlagNames, noEnv)
		if err != nil || o.Engine.Cwd != cwd {
			t.Errorf("cwd %q: %v, engine cwd %q", cwd, err, o.Engine.Cwd)
		}
	}
}
