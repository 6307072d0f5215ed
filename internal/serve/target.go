package serve

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
)

// Target says which server to start and how to reach it; the input of
// every tool that starts one.
type Target struct {
	Command []string `json:"command,omitempty" jsonschema:"stdio server: program and arguments as an argv array, e.g. [\"npx\",\"-y\",\"@modelcontextprotocol/server-everything\"]. Give command or url, not both."`
	URL     string   `json:"url,omitempty" jsonschema:"HTTP server endpoint (Streamable HTTP, with a fallback to HTTP+SSE), e.g. http://127.0.0.1:3000/mcp"`
	Cwd     string   `json:"cwd,omitempty" jsonschema:"working directory of the stdio server"`
	Env     []string `json:"env,omitempty" jsonschema:"extra NAME=VALUE variables for the stdio server (it otherwise gets only PATH, HOME and a few others). Treated as secrets when they look like one: never echoed back"`
	Headers []string `json:"headers,omitempty" jsonschema:"HTTP headers 'Name: value' sent to the url only. Secrets: never echoed back"`
	Bearer  string   `json:"bearer,omitempty" jsonschema:"bearer token for the url. A secret: never echoed back"`
	Era     string   `json:"era,omitempty" jsonschema:"protocol era: auto (default: discover first, then initialize), modern, legacy or both"`

	StartupTimeoutSeconds int `json:"startup_timeout_seconds,omitempty" jsonschema:"spawn + initialize + discovery deadline in seconds (default 60, at most 120)"`
}

// Bounds of what a caller may ask for: the table's (package options).
var (
	defaultStartup = paramDefault[time.Duration]("startup-timeout")
	maxStartup     = paramMax[time.Duration]("startup-timeout")
)

// errNoTarget is returned when neither command nor url is given.
var errNoTarget = errors.New("give the target: command (an argv array) or url")

// settings turns t into the audit settings every tool starts from: no
// config file is read (a result depends on the arguments alone) and no
// gate is checked (the caller reads the score).
func (t Target) settings() (audit.Settings, error) {
	if len(t.Command) == 0 && t.URL == "" {
		return audit.Settings{}, errNoTarget
	}
	startup := clampDuration(t.StartupTimeoutSeconds, defaultStartup, maxStartup)
	st := audit.Settings{Command: t.Command, NoDefaultGate: true}
	for key, v := range map[string]any{
		"url": t.URL, "cwd": t.Cwd, "env": t.Env, "header": t.Headers, "bearer": t.Bearer, "era": t.Era,
		"startup-timeout": startup, "config": os.DevNull,
	} {
		st.Given.Set(key, v)
	}
	return st, nil
}

// redactor returns a function that masks the secrets of t, and own (those
// of mcp-fuzz's own environment), in text the tools return that did not come
// through the report model (error messages, which may quote the server's
// stderr).
func (t Target) redactor(lookup func(string) (string, bool), own map[string]string) func(string) string {
	values := secret.Values(secret.Collect(secret.Inputs{Bearer: t.Bearer, Headers: t.Headers, URL: t.URL, Env: t.Env, LookupEnv: lookup}))
	for _, name := range slices.Sorted(maps.Keys(own)) {
		if v := own[name]; secret.Eligible(v) {
			values = append(values, v)
		}
	}
	return func(s string) string {
		for _, v := range values {
			s = strings.ReplaceAll(s, v, "***")
		}
		return s
	}
}

// clampDuration is seconds as a duration, def when not positive, at most
// max.
func clampDuration(seconds int, def, max time.Duration) time.Duration {
	if seconds <= 0 {
		return def
	}
	d := time.Duration(seconds) * time.Second
	if d > max {
		return max
	}
	return d
}

// argNames spells the option keys of audit errors as this server's tool
// arguments: the table's parameter names ("skip-tools" is skip_tools).
func argNames(key string) string {
	if o, ok := options.Lookup(key); ok && o.Param.Name != "" {
		return o.Param.Name
	}
	return strings.ReplaceAll(key, "-", "_")
}

// paramDefault is the serve tools' default of the table's setting key.
func paramDefault[T any](key string) T {
	o, _ := options.Lookup(key)
	v, _ := o.ParamDefault().(T)
	return v
}

// paramValues are the values the table's setting key takes.
func paramValues(key string) []string {
	o, _ := options.Lookup(key)
	return o.Values
}

// paramMax is the serve tools' largest value of the table's setting key.
func paramMax[T any](key string) T {
	o, _ := options.Lookup(key)
	v, _ := o.Param.Max.(T)
	return v
}
