package action

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// Inputs are the inputs of action.yml, in its order: the table's (package
// options). A test checks that action.yml and
// .github/actions/local/action.yml declare exactly these.
var Inputs = options.InputNames()

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
		Bearer:  getenv(engine.BearerEnv),
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

// readInputs reads the inputs, those of the table (package options) by
// their settings' kinds, into the audit's settings and the Action's own.
// get reads an input; workspace is GITHUB_WORKSPACE, or the current
// directory outside Actions.
func readInputs(get func(string) string, workspace string) (settings, error) {
	s := settings{workspace: workspace}
	a := &s.audit
	cwd, _ := options.Lookup("cwd")
	base := workspace
	if wd := get(cwd.Input.Name); wd != "" {
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
	var own options.Values // the Action's own inputs
	for _, o := range options.All() {
		name := o.Input.Name
		if name == "" || o.Key == cwd.Key {
			continue
		}
		v, err := inputValue(o.Kind, name, get(name), resolve)
		switch {
		case err != nil:
			return s, err
		case o.Kind == options.Command:
			if a.Command, _ = v.([]string); len(a.Command) > 0 {
				a.Given.Set(cwd.Key, base) // the server starts in working-directory
			}
		case o.Flag.Name == "" && o.Config == "" && o.Param.Name == "":
			own.Set(o.Key, v)
		default:
			a.Given.Set(o.Key, v)
		}
	}
	if !a.Given.Has("config") {
		if def := resolve(config.DefaultPath); fileExists(def) {
			a.Given.Set("config", def) // .mcp-fuzz.yml of working-directory
		}
	}
	comment, _ := options.Lookup("comment")
	switch s.comment = strings.ToLower(own.String(comment.Key)); {
	case s.comment == "":
		s.comment = comment.Default.(string)
	case !slices.Contains(comment.Values, s.comment):
		return s, fmt.Errorf("input %s %q: want %s", comment.Input.Name, own.String(comment.Key), words.OrList(comment.Values))
	}
	s.commentKey = own.String("comment-key")
	s.token = own.String("github-token")
	s.sarif, s.report = own.String("sarif"), own.String("report")
	for _, key := range []string{"sarif", "report"} {
		if p := own.String(key); strings.HasSuffix(p, string(filepath.Separator)) {
			return s, fmt.Errorf("input %s %q: want a file path", key, p)
		}
	}
	return s, nil
}

// inputValue reads v, the value of the input name, as a value of kind
// (see [options.Kind]); nil when v is empty (the input is not given).
// Paths are resolved against working-directory.
func inputValue(kind options.Kind, name, v string, resolve func(string) string) (any, error) {
	if v == "" {
		return nil, nil
	}
	switch kind {
	case options.Command:
		command, err := splitCommand(v)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		if len(command) == 0 {
			return nil, fmt.Errorf("input %s: empty", name)
		}
		return command, nil
	case options.Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("input %s %q: want true or false", name, v)
		}
		return b, nil
	case options.Int:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("input %s %q: want an integer", name, v)
		}
		return n, nil
	case options.Int64:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("input %s %q: want an integer", name, v)
		}
		return n, nil
	case options.Duration:
		d, err := options.ParseSeconds(v)
		if err != nil {
			return nil, fmt.Errorf("input %s %q: %w", name, v, err)
		}
		return d, nil
	case options.Path:
		return resolve(v), nil
	case options.Lines:
		return lines(v), nil
	case options.Names, options.List:
		return list(v), nil
	}
	return v, nil
}

// inputNames spells option keys as this Action's inputs (the bearer token
// as the variable it reads it from), or as config file keys for options
// only the file can set.
func inputNames(key string) string {
	if key == "bearer" {
		return engine.BearerEnv
	}
	o, ok := options.Lookup(key)
	switch {
	case ok && o.Input.Name != "":
		return "input " + o.Input.Name
	case ok && o.Config != "":
		return "config " + o.Config
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
