package box

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// unreachable says why the server could not run as uid:gid ("cannot write
// the working directory /w"), or returns "": it needs its executable (read and execute), its working directory
// (read, write, search: it may write there), and the paths in its arguments
// and environment values: an existing directory must be writable (a server
// given a directory may write in it), an existing file readable (writable
// too when it comes from the environment: a data file a server keeps), and
// a path that does not exist yet needs a writable directory to be made in.
// It reads permission bits only: an ACL may allow more.
func unreachable(uid, gid int, o Options, dir string) string {
	check := func(path string, want uint32) bool {
		return access(uid, gid, path, want)
	}
	if o.Path != "" && !check(o.Path, 5) {
		return "cannot run the executable " + o.Path
	}
	if interp := interpreter(o.Path, o.Env); interp != "" && !check(interp, 5) {
		return "cannot run " + interp + ", the interpreter of " + o.Path
	}
	if dir != "" && !check(dir, 7) {
		return "cannot write the working directory " + dir
	}
	for _, np := range namedPaths(o, dir) {
		path := np.path
		what := "the argument " + path
		if np.env != "" {
			what = path + " (" + np.env + ")"
		}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			// Not there yet: the server may create it.
			parent := filepath.Dir(path)
			if pst, err := os.Stat(parent); err == nil && pst.IsDir() && !check(parent, 3) {
				return "cannot create " + what + " in " + parent
			}
		case st.IsDir():
			if !check(path, 7) {
				return "cannot write the directory " + what
			}
		case np.env != "":
			if !check(path, 6) {
				return "cannot read and write " + what
			}
		default:
			if !check(path, 4) {
				return "cannot read " + what
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
// PATH lists where to look, not what the server needs: a directory in it
// that the uid cannot search only hides the commands there.
var ignoredEnv = map[string]bool{"HOME": true, "PWD": true, "OLDPWD": true, "SHELL": true, "PATH": true}

// writablePaths are where a server that stays uid 0 may write: its working
// directory, its home, the temporary directories, the terminals and null
// devices, the directories its arguments name and the files and
// directories its environment names (for a path not made yet, the
// directory it would be made in). A file named by an argument is not: it
// is a program, a script or an input far more often than a file the
// server keeps (a wrapper script it may not rewrite).
func writablePaths(o Options, dir, home string) []string {
	out := []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}
	if dir != "" {
		out = append(out, dir)
	}
	if home != "" {
		out = append(out, home)
	}
	for _, np := range namedPaths(o, dir) {
		if st, err := os.Stat(np.path); err == nil {
			if st.IsDir() || np.env != "" {
				out = append(out, np.path)
			}
		} else if parent := filepath.Dir(np.path); parent != np.path {
			if st, err := os.Stat(parent); err == nil && st.IsDir() {
				out = append(out, parent)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A namedPath is a path the server's arguments or environment name.
type namedPath struct {
	path string // absolute
	env  string // the variable it comes from; "" for an argument
}

// namedPaths are the paths named by the server's arguments and environment
// values (PATH and the like excepted: [ignoredEnv]), each list of paths
// split, made absolute against dir.
func namedPaths(o Options, dir string) []namedPath {
	var out []namedPath
	add := func(value, env string) {
		for _, part := range strings.Split(value, string(os.PathListSeparator)) {
			if p := asPath(part, dir); p != "" {
				out = append(out, namedPath{p, env})
			}
		}
	}
	for _, a := range o.Args {
		add(a, "")
	}
	for _, kv := range o.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && !ignoredEnv[k] {
			add(v, k)
		}
	}
	return out
}

// asPath returns part as an absolute path when it looks like one (an
// --opt=VALUE's value too), else "".
func asPath(part, dir string) string {
	if v, ok := strings.CutPrefix(part, "--"); ok {
		if _, after, ok := strings.Cut(v, "="); ok {
			part = after
		}
	}
	if part == "" || len(part) > 4096 || strings.ContainsRune(part, 0) {
		return ""
	}
	if filepath.IsAbs(part) {
		return filepath.Clean(part)
	}
	if !strings.ContainsRune(part, '/') && !strings.HasPrefix(part, ".") {
		return "" // a word, not a path
	}
	return filepath.Join(dir, part)
}

// interpreter returns the program a script at path names on its #! line
// (for "#!/usr/bin/env NAME", NAME looked up in env's PATH), or "".
func interpreter(path string, env []string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) != "env" || len(fields) < 2 {
		return fields[0]
	}
	name := fields[1]
	if name == "-S" && len(fields) > 2 {
		name = fields[2]
	}
	for _, kv := range env {
		if dirs, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(dirs) {
				if st, err := os.Stat(filepath.Join(d, name)); err == nil && !st.IsDir() {
					return filepath.Join(d, name)
				}
			}
		}
	}
	return fields[0]
}
