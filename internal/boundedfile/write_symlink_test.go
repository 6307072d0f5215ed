//go:build unix

package boundedfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// plantLink makes dest a symbolic link to a file outside dest's directory
// holding "secret", as a hostile server would, and returns that file.
func plantLink(t *testing.T, dest string) string {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dest); err != nil {
		t.Fatal(err)
	}
	return outside
}

// assertReplaced checks that dest is a regular file holding want, that
// the file outside still holds "secret", and that dir holds only dest.
func assertReplaced(t *testing.T, dir, dest, outside, want string) {
	t.Helper()
	fi, err := os.Lstat(dest)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file: %v, %v", dest, fi, err)
	}
	if b, _ := os.ReadFile(dest); string(b) != want {
		t.Errorf("%s holds %q, want %q", dest, b, want)
	}
	if outside != "" {
		if b, _ := os.ReadFile(outside); string(b) != "secret" {
			t.Errorf("written through the link: the file outside holds %q", b)
		}
	}
	assertOnly(t, dir, filepath.Base(dest))
}

// assertOnly checks that dir holds exactly the entries names (no
// temporary file left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("%s holds %q, want %q", dir, got, names)
		}
	}
}

// TestWriteReplacesAPlantedSymlink: a link at the destination to a file
// outside the directory is replaced by the report, never written through.
func TestWriteReplacesAPlantedSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "report.json")
	outside := plantLink(t, dest)
	if err := CheckWritable(dest); err != nil {
		t.Errorf("CheckWritable of a link to be replaced: %v", err)
	}
	if err := Write(dest, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertReplaced(t, dir, dest, outside, "new")
}

// TestWriteInReplacesAPlantedSymlink is the same through an os.Root, for
// a file in a subdirectory, and for a link to a file inside the root.
func TestWriteInReplacesAPlantedSymlink(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	sub := filepath.Join(ws, "reports")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := plantLink(t, filepath.Join(sub, "r.sarif"))
	inside := filepath.Join(ws, "inside.txt")
	if err := os.WriteFile(inside, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../inside.txt", filepath.Join(sub, "r.md")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"reports/r.sarif", "reports/r.md"} {
		if err := WriteIn(root, name, []byte("new "+name), Options{Perm: 0o644}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fi, err := os.Lstat(filepath.Join(ws, name))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s is not a regular file: %v, %v", name, fi, err)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != "new "+name {
			t.Errorf("%s holds %q", name, b)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Errorf("written through the link out of the root: %q", b)
	}
	if b, _ := os.ReadFile(inside); string(b) != "mine" {
		t.Errorf("written through the link inside the root: %q", b)
	}
	assertOnly(t, sub, "r.md", "r.sarif")
}

// TestWriteNoReplaceKeepsAPlantedSymlink: where nothing may be replaced,
// a link at the destination is an error matching fs.ErrExist, the link
// stays and nothing is written through it.
func TestWriteNoReplaceKeepsAPlantedSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "report.json")
	outside := plantLink(t, dest)
	err := WriteWith(dest, []byte("new"), Options{NoReplace: true})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("NoReplace over a link: %v, want an ErrExist", err)
	}
	if fi, err := os.Lstat(dest); err != nil || fi.Mode().Type() != os.ModeSymlink {
		t.Errorf("the link is gone: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Errorf("written through the link: %q", b)
	}
	assertOnly(t, dir, "report.json")
}

// TestWriteRegularFile is the clean twin: a new file is created with the
// mode asked for, an existing one replaced, and nothing else is left in
// the directory.
func TestWriteRegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "report.json")
	if err := Write(dest, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	assertReplaced(t, dir, dest, "", "first")
	if err := Write(dest, []byte("second, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertReplaced(t, dir, dest, "", "second, longer")
	if err := WriteWith(dest, []byte("x"), Options{NoReplace: true}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("NoReplace over a file: %v, want an ErrExist", err)
	}
	fresh := filepath.Join(dir, "fresh.json")
	if err := WriteWith(fresh, []byte("x"), Options{NoReplace: true}); err != nil {
		t.Errorf("NoReplace, new file: %v", err)
	}
	assertOnly(t, dir, "fresh.json", "report.json")
	if b, _ := os.ReadFile(dest); string(b) != "second, longer" {
		t.Errorf("NoReplace changed the file: %q", b)
	}

	// A relative path is in the working directory's terms; a path that
	// names no file is refused.
	for _, bad := range []string{"", dir + "/", filepath.Join(dir, ".."), "."} {
		if err := Write(bad, []byte("x"), 0o644); err == nil {
			t.Errorf("Write(%q): no error", bad)
		}
	}
}
