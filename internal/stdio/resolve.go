package stdio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Resolve finds the executable for name as [Start] does (see resolve).
func Resolve(name string, env []string, dir string) (string, error) { return resolve(name, env, dir) }

// resolve finds the executable for name the way a shell started with env in dir
// would: a name with a path separator is a path (relative to dir), anything else is
// looked up in env's PATH, or in the caller's PATH when env has none.
func resolve(name string, env []string, dir string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: empty command", ErrNotFound)
	}
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		path := name
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", fmt.Errorf("resolving %s: %w", name, err)
		}
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w: %s", ErrNotFound, name)
		case err != nil:
			return "", fmt.Errorf("resolving %s: %w", name, err)
		case fi.IsDir():
			return "", fmt.Errorf("%s is a directory", name)
		}
		return abs, nil
	}
	if pathList, ok := envPath(env); ok && runtime.GOOS != "windows" {
		for _, d := range filepath.SplitList(pathList) {
			// Relative entries (including "" for ".") are skipped, as exec.LookPath
			// refuses them: they depend on the directory the server happens to start in.
			if !filepath.IsAbs(d) {
				continue
			}
			if p := filepath.Join(d, name); isExecutable(p) {
				return p, nil
			}
		}
		return "", fmt.Errorf("%w: %s (not in the server's PATH)", ErrNotFound, name)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, exec.ErrDot) {
			return "", fmt.Errorf("%w: %s", ErrNotFound, name)
		}
		return "", fmt.Errorf("resolving %s: %w", name, err)
	}
	return filepath.Abs(p)
}

// envPath returns the value of the last PATH entry in env, as exec.Cmd would use it.
func envPath(env []string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == "PATH" {
			return v, true
		}
	}
	return "", false
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
