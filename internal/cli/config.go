package cli

import (
	"errors"
	"os"
	"sort"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/config"
)

// loadConfig reads --config, or .mcp-fuzz.yml when it exists and no
// --config was given. It returns nil when there is no file to read.
func loadConfig(path string) (*config.File, error) {
	if path == "" {
		if _, err := os.Stat(config.DefaultPath); err != nil {
			return nil, nil
		}
		path = config.DefaultPath
	}
	f, err := config.Load(path)
	if errors.Is(err, config.ErrNotFound) {
		return nil, err
	}
	return f, err
}

// applyConfig fills in what the file says where the command line is silent.
func applyConfig(o *options, f *config.File, set map[string]bool, failUnder *int, failOn *csvFlag) {
	c := &o.cfg
	if f.Timeout.Duration > 0 && !set["timeout"] {
		c.Timeout = f.Timeout.Duration
	}
	if f.StartupTimeout.Duration > 0 && !set["startup-timeout"] {
		c.StartupTimeout = f.StartupTimeout.Duration
	}
	if f.Seed != nil && !set["seed"] {
		c.Seed = *f.Seed
	}
	if f.Cases != nil && !set["cases"] {
		c.Cases = *f.Cases
		if c.Cases == 0 {
			c.Cases = -1
		}
	}
	if f.Profile != "" && !set["profile"] {
		c.Profile = f.Profile
	}
	if f.IncludeDestructive != nil && !set["include-destructive"] {
		c.IncludeDestructive = *f.IncludeDestructive
	}
	if len(f.Tools) > 0 && !set["tools"] {
		c.Tools = f.Tools
	}
	if f.SlowMs != nil && !set["slow-ms"] {
		c.SlowMs = *f.SlowMs
	}
	if f.BloatChars != nil && !set["bloat-chars"] {
		c.BloatChars = *f.BloatChars
	}
	if f.Parallel != nil && !set["parallel"] {
		c.Parallel = *f.Parallel
	}
	if f.MaxHangs != nil && !set["max-hangs"] {
		c.MaxHangs = maxHangs(*f.MaxHangs)
	}
	if f.FailUnder != nil && !set["fail-under"] {
		*failUnder = *f.FailUnder
	}
	if len(f.FailOn) > 0 && !set["fail-on"] {
		*failOn = f.FailOn
	}
	if f.Cwd != "" && !set["cwd"] {
		c.Cwd = f.Cwd
	}
	// Lists add up: the file's and the command line's.
	c.SkipTools = append(c.SkipTools, f.SkipTools...)
	c.PassEnv = append(c.PassEnv, f.PassEnv...)
	c.Secrets = append(c.Secrets, f.Secrets...)
	keys := make([]string, 0, len(f.Env))
	for k := range f.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c.Env = append([]string{k + "=" + f.Env[k]}, c.Env...) // command line wins
	}
	names := make([]string, 0, len(f.PerTool))
	for n := range f.PerTool {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := f.PerTool[n]
		if t.Example != nil {
			if c.Examples == nil {
				c.Examples = map[string]map[string]any{}
			}
			c.Examples[n] = t.Example
		}
		if t.Skip {
			c.SkipTools = append(c.SkipTools, n)
		}
		if t.Include {
			c.AlsoCall = append(c.AlsoCall, n)
		}
		if t.Timeout.Duration > 0 {
			if c.ToolTimeouts == nil {
				c.ToolTimeouts = map[string]time.Duration{}
			}
			c.ToolTimeouts[n] = t.Timeout.Duration
		}
	}
	for _, e := range f.Expected {
		if o.gates.Expected == nil {
			o.gates.Expected = map[string]string{}
		}
		o.gates.Expected[e.ID] = e.Reason
	}
}
