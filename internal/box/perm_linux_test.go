package box

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnreachable: the uid a root mcp-fuzz picks for a server must be able
// to use every file the server is given; these are the files that decide.
func TestUnreachable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files another uid cannot reach")
	}
	t.Parallel()
	base, err := os.MkdirTemp("", "box-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	mk := func(rel string, mode os.FileMode, dir bool) string {
		p := filepath.Join(base, rel)
		if dir {
			if err := os.Mkdir(p, mode); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	open := mk("open", 0o755, true)
	shared := mk("shared", 0o1777, true)
	private := mk("private", 0o700, true)
	exe := mk("open/server", 0o755, false)
	hidden := mk("private/server", 0o755, false)
	data := mk("open/data.json", 0o644, false)
	script := filepath.Join(base, "open/script.py")
	if err := os.WriteFile(script, []byte("#!"+hidden+" -u\nprint()\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const uid, gid = 65534, 65534
	tests := []struct {
		name    string
		o       Options
		dir     string
		want    string // the path named
		wantWhy string // how the reason begins
	}{
		{"all in reach", Options{Path: exe, Args: []string{"--root", shared}, Env: []string{"DATA=" + shared + "/new.json", "PATH=/root:/usr/bin"}}, shared, "", ""},
		{"executable in a private directory", Options{Path: hidden}, shared, hidden, "cannot run the executable"},
		{"a script whose interpreter is in a private directory", Options{Path: script}, shared, hidden, "cannot run " + hidden + ", the interpreter"},
		{"working directory it cannot write", Options{Path: exe}, open, open, "cannot write the working directory"},
		{"a directory argument it cannot write", Options{Path: exe, Args: []string{open}}, shared, open, "cannot write the directory the argument"},
		{"a script argument it can read", Options{Path: exe, Args: []string{data}}, shared, "", ""},
		{"an --opt=PATH argument in a private directory", Options{Path: exe, Args: []string{"--config=" + hidden}}, shared, hidden, "cannot read the argument"},
		{"a data file from the environment it cannot write", Options{Path: exe, Env: []string{"MEMORY_FILE=" + data}}, shared, data + " (MEMORY_FILE)", "cannot read and write"},
		{"a file to create where it cannot", Options{Path: exe, Env: []string{"MEMORY_FILE=" + filepath.Join(open, "new.json")}}, shared, open, "cannot create"},
		{"a relative path from the working directory", Options{Path: exe, Args: []string{"./server"}}, open, open, "cannot write the working directory"},
		{"words are no paths", Options{Path: exe, Args: []string{"stdio", "--verbose"}, Env: []string{"MODE=fast"}}, shared, "", ""},
		{"HOME and PATH do not decide", Options{Path: exe, Env: []string{"HOME=" + private, "PATH=" + private}}, shared, "", ""},
	}
	for _, tt := range tests {
		got := unreachable(uid, gid, tt.o, tt.dir)
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.wantWhy) || !strings.Contains(got, tt.want) {
			t.Errorf("%s: unreachable = %q, want %q naming %q", tt.name, got, tt.wantWhy, tt.want)
		}
	}
	// The owner of a directory may use it whatever the others may.
	if err := os.Chown(private, uid, gid); err != nil {
		t.Fatal(err)
	}
	if got := unreachable(uid, gid, Options{Path: hidden}, private); got != "" {
		t.Errorf("owner: unreachable = %q, want none", got)
	}
}

// TestWritablePaths: a server left at uid 0 may write where it works and
// keeps its data, never into a program or input it was given.
func TestWritablePaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "server.py")
	data := filepath.Join(dir, "data.json")
	sub := filepath.Join(dir, "sub")
	for _, f := range []string{script, data} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Args: []string{script, "--root", sub, "--out=" + filepath.Join(sub, "new.txt")}, Env: []string{"DATA=" + data, "CACHE=" + filepath.Join(dir, "missing", "x"), "PATH=/usr/bin"}}
	got := writablePaths(o, "/work", "/home/box")
	has := func(p string) bool { return slices.Contains(got, p) }
	for _, p := range []string{"/work", "/home/box", "/tmp", "/dev/null", sub, data} {
		if !has(p) {
			t.Errorf("%s not writable; writable: %v", p, got)
		}
	}
	for _, p := range []string{script, "/usr/bin", filepath.Join(dir, "missing")} {
		if has(p) {
			t.Errorf("%s writable; writable: %v", p, got)
		}
	}
}
