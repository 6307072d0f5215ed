package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
)

// Inputs are the inputs of action.yml, in its order. A test checks that
// action.yml and .github/actions/local/action.yml declare exactly these.
var Inputs = []string{
	"command", "url", "headers", "env", "pass-env", "working-directory",
	"no-calls", "include-destructive", "tools", "skip-tools", "cases", "seed", "timeout",
	"startup-timeout", "repeat", "era", "protocol-version", "concurrency", "sequential", "protocol", "box", "config", "secrets",
	"fail-under", "fail-on", "baseline", "comment", "comment-key",
	"github-token", "sarif", "sarif-location", "report",
}

// Outputs are the outputs of action.yml, in its order.
var Outputs = []string{
	"score", "grade", "passed", "crashes", "findings", "report-path", "sarif-path", "badge-url", "static",
}

// Comment modes.
const (
	commentAuto   = "auto"
	commentAlways = "always"
	commentOff    = "off"
)

// settings is what the inputs say: the audit's settings and the Action's own.
type settings struct {
	audit      audit.Settings
	comment    string // auto, always or off
	commentKey string
	token      string
	sarif      string // absolute path to write, or ""
	report     string // absolute path to write, or ""
	workspace  string // GITHUB_WORKSPACE (absolute), where outputs are relative to
	dir        string // working-directory (absolute), where relative inputs start
	warnings   []string
}

// secretsOf returns the secret set of docs/BEHAVIOUR.md#targets-and-transports as the inputs give it, before
// anything is validated, so it is masked before anything else is printed:
// the same set the engine redacts ([secret.Collect] over the same values),
// plus the Action's own github-token.
func secretsOf(get, getenv func(string) string) []string {
	out := secret.Values(secret.Collect(secret.Inputs{
		Bearer:  getenv("MCP_FUZZ_BEARER"),
		Headers: lines(get("headers")),
		URL:     get("url"),
		Env:     lines(get("env")),
		PassEnv: list(get("pass-env")),
		Named:   list(get("secrets")),
		LookupEnv: func(name string) (string, bool) {
			v := getenv(name)
			return v, v != ""
		},
	}))
	if t := get("github-token"); t != "" {
		out = append(out, t)
	}
	return out
}

// readInputs reads the inputs into the audit's settings and the Action's
// own. get reads an input; workspace is GITHUB_WORKSPACE, or the current
// directory outside Actions.
func readInputs(get func(string) string, workspace string) (settings, error) {
	s := settings{workspace: workspace}
	a := &s.audit
	base := workspace
	if wd := get("working-directory"); wd != "" {
		if filepath.IsAbs(wd) {
			base = wd
		} else {
			base = filepath.Join(workspace, wd)
		}
	}
	s.dir = base
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	if c := get("command"); c != "" {
		command, err := splitCommand(c)
		if err != nil {
			return s, fmt.Errorf("input command: %w", err)
		}
		if len(command) == 0 {
			return s, fmt.Errorf("input command: empty")
		}
		a.Command = command
		a.Cwd = base // the server starts in working-directory
	}
	a.URL = get("url")
	a.Headers = lines(get("headers"))
	a.Env = lines(get("env"))
	a.PassEnv = list(get("pass-env"))
	a.Secrets = list(get("secrets"))
	var err error
	if a.NoCalls, err = boolInput(get, "no-calls"); err != nil {
		return s, err
	}
	if a.IncludeDestructive, err = boolInput(get, "include-destructive"); err != nil {
		return s, err
	}
	if a.Sequential, err = boolInput(get, "sequential"); err != nil {
		return s, err
	}
	if a.Protocol, err = boolInput(get, "protocol"); err != nil {
		return s, err
	}
	if a.Box, err = boolInput(get, "box"); err != nil {
		return s, err
	}
	a.Tools = list(get("tools"))
	a.SkipTools = list(get("skip-tools"))
	if a.Cases, err = intInput(get, "cases"); err != nil {
		return s, err
	}
	if a.Repeat, err = intInput(get, "repeat"); err != nil {
		return s, err
	}
	if a.Concurrency, err = intInput(get, "concurrency"); err != nil {
		return s, err
	}
	a.Era = get("era")
	a.ProtocolVersion = get("protocol-version")
	if a.FailUnder, err = intInput(get, "fail-under"); err != nil {
		return s, err
	}
	if v := get("seed"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return s, fmt.Errorf("input seed %q: want an integer", v)
		}
		a.Seed = &n
	}
	for _, t := range []struct {
		name string
		d    **time.Duration
	}{{"timeout", &a.Timeout}, {"startup-timeout", &a.StartupTimeout}} {
		if v := get(t.name); v != "" {
			d, err := audit.ParseSeconds(v)
			if err != nil {
				return s, fmt.Errorf("input %s %q: %w", t.name, v, err)
			}
			*t.d = &d
		}
	}
	a.FailOn = list(get("fail-on"))
	a.Baseline = resolve(get("baseline"))
	if c := get("config"); c != "" {
		a.Config = resolve(c)
	} else if def := resolve(config.DefaultPath); fileExists(def) {
		a.Config = def // .mcp-fuzz.yml of working-directory
	}
	switch s.comment = strings.ToLower(get("comment")); s.comment {
	case "":
		s.comment = commentAuto
	case commentAuto, commentAlways, commentOff:
	default:
		return s, fmt.Errorf("input comment %q: want auto, always or off", get("comment"))
	}
	s.commentKey = get("comment-key")
	s.token = get("github-token")
	s.sarif = resolve(get("sarif"))
	a.SARIFLocation = resolve(get("sarif-location"))
	s.report = resolve(get("report"))
	for _, p := range []struct{ name, path string }{{"sarif", s.sarif}, {"report", s.report}} {
		if p.path != "" && strings.HasSuffix(p.path, string(filepath.Separator)) {
			return s, fmt.Errorf("input %s %q: want a file path", p.name, p.path)
		}
	}
	return s, nil
}

// boolInput reads the boolean input name; nil when it is not set.
func boolInput(get func(string) string, name string) (*bool, error) {
	v := get(name)
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, fmt.Errorf("input %s %q: want true or false", name, v)
	}
	return &b, nil
}

// intInput reads an integer input; nil when it is not set.
func intInput(get func(string) string, name string) (*int, error) {
	v := get(name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return nil, fmt.Errorf("input %s %q: want an integer", name, v)
	}
	return &n, nil
}

// inputNames spells option keys as this Action's inputs, or as config file
// keys for options only the file can set.
func inputNames(key string) string {
	switch key {
	case "header":
		return "input headers"
	case "secret":
		return "input secrets"
	case "cwd":
		return "input working-directory"
	case "bearer":
		return "MCP_FUZZ_BEARER"
	}
	for _, in := range Inputs {
		if in == key {
			return "input " + key
		}
	}
	return "config " + key
}

// relative names path for an output: relative to the workspace when it lies
// inside it (the container's workspace path means nothing on the host),
// else as it is.
func relative(workspace, path string) string {
	if path == "" {
		return ""
	}
	if r, ok := within(workspace, path); ok {
		return filepath.ToSlash(r)
	}
	return path
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
