package box

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// unreachable returns the first file among the server's executable, its
// working directory and the existing absolute or relative paths in its
// arguments and environment values that uid:gid could not reach (search
// every directory above it, read it, and execute the executable), or "".
// It reads permission bits only: an ACL may allow more.
func unreachable(uid, gid int, o Options, dir string) string {
	check := func(path string, want uint32) bool {
		return access(uid, gid, path, want)
	}
	if o.Path != "" && !check(o.Path, 5) {
		return o.Path
	}
	if dir != "" && !check(dir, 5) {
		return dir
	}
	var candidates []string
	candidates = append(candidates, o.Args...)
	for _, kv := range o.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && !ignoredEnv[k] {
			candidates = append(candidates, v)
		}
	}
	for _, c := range candidates {
		for _, part := range strings.Split(c, string(os.PathListSeparator)) {
			if v, ok := strings.CutPrefix(part, "--"); ok {
				if _, after, ok := strings.Cut(v, "="); ok {
					part = after
				}
			}
			if part == "" || len(part) > 4096 || strings.ContainsRune(part, 0) {
				continue
			}
			path := part
			if !filepath.IsAbs(path) {
				if !strings.ContainsRune(path, '/') && !strings.HasPrefix(path, ".") {
					continue // a word, not a path
				}
				path = filepath.Join(dir, path)
			}
			if _, err := os.Stat(path); err != nil {
				continue
			}
			if !check(path, 4) {
				return path
			}
		}
	}
	return ""
}

// access reports whether uid:gid may search every directory above path and
// has the want bits (4 read, 2 write, 1 execute; for a directory, read and
// search) on path itself, by the permission bits.
func access(uid, gid int, path string, want uint32) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		abs = real
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if !allowed(uid, gid, d, 1) {
			return false
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	var st unix.Stat_t
	if unix.Stat(abs, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && want&4 != 0 {
		want |= 1
	}
	return allowed(uid, gid, abs, want)
}

// allowed reports whether uid:gid has the want bits on path.
func allowed(uid, gid int, path string, want uint32) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	mode := st.Mode & 0o777
	var bits uint32
	switch {
	case int(st.Uid) == uid:
		bits = mode >> 6
	case int(st.Gid) == gid:
		bits = mode >> 3
	default:
		bits = mode
	}
	return bits&7&want == want
}

// writable reports whether uid:gid may create files in the directory dir.
func writable(uid, gid int, dir string) bool {
	return access(uid, gid, dir, 3)
}

// ignoredEnv are variables whose paths the server's uid need not reach:
// the box gives it a home of its own when it cannot write HOME.
var ignoredEnv = map[string]bool{"HOME": true, "PWD": true, "OLDPWD": true, "SHELL": true}
