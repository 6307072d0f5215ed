//go:build unix

package boundedfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// destSetup makes base/reports and base/victim, and opens a Dest for
// base/reports/r.json.
func destSetup(t *testing.T) (base string, d *Dest) {
	t.Helper()
	base = t.TempDir()
	for _, dir := range []string{"reports", "victim"} {
		if err := os.Mkdir(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDest(filepath.Join(base, "reports", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return base, d
}

// assertEmpty fails unless dir holds nothing.
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("%s holds %v (%v), want nothing", dir, entries, err)
	}
}

// TestDestClean: with nothing changed, the file is written at its path.
func TestDestClean(t *testing.T) {
	base, d := destSetup(t)
	if err := d.Write([]byte("{}"), Options{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(base, "reports", "r.json")); err != nil || string(b) != "{}" {
		t.Errorf("r.json = %q, %v", b, err)
	}
	if d.Moved() {
		t.Error("Moved() = true for a directory left alone")
	}
	assertEmpty(t, filepath.Join(base, "victim"))
}

// TestDestDirectoryReplacedByLink: the directory, renamed and replaced by
// a symbolic link to another one after OpenDest, still gets the file; the
// link's target gets nothing.
func TestDestDirectoryReplacedByLink(t *testing.T) {
	base, d := destSetup(t)
	reports := filepath.Join(base, "reports")
	if err := os.Rename(reports, reports+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("victim", reports); err != nil {
		t.Fatal(err)
	}
	if err := d.Write([]byte("{}"), Options{}); err != nil {
		t.Fatal(err)
	}
	assertEmpty(t, filepath.Join(base, "victim"))
	if b, err := os.ReadFile(filepath.Join(reports+".orig", "r.json")); err != nil || string(b) != "{}" {
		t.Errorf("the original directory's r.json = %q, %v", b, err)
	}
	if !d.Moved() {
		t.Error("Moved() = false for a directory replaced by a link")
	}
}

// TestDestDirectoryRemoved: a directory removed after OpenDest (and
// replaced by a link, or not) fails the write, naming the path and the
// directory; nothing is written anywhere.
func TestDestDirectoryRemoved(t *testing.T) {
	for _, replace := range []bool{false, true} {
		base, d := destSetup(t)
		reports := filepath.Join(base, "reports")
		if err := os.Remove(reports); err != nil {
			t.Fatal(err)
		}
		if replace {
			if err := os.Symlink("victim", reports); err != nil {
				t.Fatal(err)
			}
		}
		err := d.Write([]byte("{}"), Options{})
		want := filepath.Join(reports, "r.json") + ": directory " + reports + " was removed during the run"
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("replaced by a link %v: Write = %v, want %q", replace, err, want)
		}
		assertEmpty(t, filepath.Join(base, "victim"))
		if !d.Moved() {
			t.Errorf("replaced by a link %v: Moved() = false for a removed directory", replace)
		}
	}
}

// TestDestKeepsTheLastComponentRules: the file name itself is still
// guarded as by WriteWith: a link there is replaced, not followed; a FIFO
// is refused; NoReplace keeps what is there.
func TestDestKeepsTheLastComponentRules(t *testing.T) {
	base, d := destSetup(t)
	secret := filepath.Join(base, "victim", "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(base, "reports", "r.json")
	if err := os.Symlink(secret, path); err != nil {
		t.Fatal(err)
	}
	if err := d.Write([]byte("x"), Options{NoReplace: true}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("NoReplace over a link = %v, want ErrExist", err)
	}
	if err := d.Write([]byte("{}"), Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("r.json is %v, %v: want a regular file", fi, err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep" {
		t.Errorf("written through the link: %q", b)
	}
}

// TestDestOpenAndClose: a missing directory cannot be opened; a closed
// Dest writes nothing.
func TestDestOpenAndClose(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenDest(filepath.Join(dir, "no", "r.json")); err == nil || !strings.Contains(err.Error(), "directory "+filepath.Join(dir, "no")) {
		t.Errorf("OpenDest in a missing directory = %v", err)
	}
	if _, err := OpenDest(dir + "/"); err == nil {
		t.Error("OpenDest of a directory path succeeded")
	}
	d, err := OpenDest(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if err := d.Write([]byte("{}"), Options{}); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	assertEmpty(t, dir)
}
