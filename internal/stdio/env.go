package stdio

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// allowedEnv is what a server gets from the caller's environment without asking.
var allowedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// allowedWindowsEnv is what programs on Windows need to run at all.
var allowedWindowsEnv = []string{
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP",
	"USERPROFILE", "USERNAME", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
	"PROGRAMFILES", "PROGRAMFILES(X86)", "COMMONPROGRAMFILES", "NUMBER_OF_PROCESSORS",
	"PROCESSOR_ARCHITECTURE", "OS",
}

// MinimalEnv builds a server's environment: the allowlisted variables (PATH, HOME,
// USER, LOGNAME, SHELL, TERM, LANG, LC_ALL, TMPDIR, TZ, and on Windows the system
// ones) that lookup has, then each variable named in pass copied from lookup, then
// the "NAME=VALUE" entries of extra. Later entries win. The result is sorted by name.
//
// It is an error to pass a variable that lookup does not have (so that a typo does
// not go unnoticed), and an extra entry that is not NAME=VALUE with a non-empty
// NAME. All such errors are returned together.
func MinimalEnv(lookup func(string) (string, bool), extra []string, pass []string) ([]string, error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	vars := map[string]string{}
	names := allowedEnv
	if runtime.GOOS == "windows" {
		names = append(names[:len(names):len(names)], allowedWindowsEnv...)
	}
	for _, name := range names {
		if v, ok := lookup(name); ok {
			vars[name] = v
		}
	}
	var errs []error
	for _, name := range pass {
		if err := checkEnvName(name); err != nil {
			errs = append(errs, fmt.Errorf("pass-env %q: %w", name, err))
			continue
		}
		v, ok := lookup(name)
		if !ok {
			errs = append(errs, fmt.Errorf("pass-env %s is not set", name))
			continue
		}
		vars[name] = v
	}
	for _, kv := range extra {
		name, v, ok := strings.Cut(kv, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("env %q: want NAME=VALUE", name))
			continue
		}
		if err := checkEnvName(name); err != nil {
			errs = append(errs, fmt.Errorf("env %q: %w", name, err))
			continue
		}
		if strings.IndexByte(v, 0) >= 0 {
			errs = append(errs, fmt.Errorf("env %s: value contains a NUL byte", name))
			continue
		}
		vars[name] = v
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	env := make([]string, 0, len(vars))
	for name, v := range vars {
		env = append(env, name+"="+v)
	}
	sort.Strings(env)
	return env, nil
}

func checkEnvName(name string) error {
	switch {
	case name == "":
		return errors.New("empty variable name")
	case strings.ContainsAny(name, "=\x00"):
		return errors.New("variable name contains '=' or a NUL byte")
	}
	return nil
}
