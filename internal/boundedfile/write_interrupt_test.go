//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failMidway makes every write in this test stop after half its data with
// ENOSPC, as a full disk would. Tests that call it must not be parallel.
func failMidway(t *testing.T) {
	t.Helper()
	orig := writeTo
	writeTo = func(f *os.File, data []byte) (int, error) {
		n, err := f.Write(data[:len(data)/2])
		if err != nil {
			return n, err
		}
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	t.Cleanup(func() { writeTo = orig })
}

// TestWriteInterruptedKeepsTheOldFile: a write that fails midway leaves the
// previous complete content (or no file), never a prefix, and no temporary
// file, through a path and through an os.Root.
func TestWriteInterruptedKeepsTheOldFile(t *testing.T) {
	failMidway(t)
	dir := t.TempDir()
	dest := filepath.Join(dir, "r.xml")
	old := "<old>complete</old>"
	if err := os.WriteFile(dest, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	data := []byte("<new>" + strings.Repeat("x", 1<<16) + "</new>")
	if err := Write(dest, data, 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Write = %v, want ENOSPC", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != old {
		t.Errorf("after a failed write the file holds %d bytes, want the old %q", len(b), old)
	}
	assertOnly(t, dir, "r.xml")

	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := WriteIn(root, "r.xml", data, Options{}); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("WriteIn = %v, want ENOSPC", err)
	}
	if err := WriteIn(root, "new.xml", data, Options{NoReplace: true}); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("WriteIn, new file = %v, want ENOSPC", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != old {
		t.Errorf("after a failed WriteIn the file holds %d bytes, want the old %q", len(b), old)
	}
	assertOnly(t, dir, "r.xml")
}

// TestWriteBeforeRenameFails: an error from BeforeRename (a chown, say)
// fails the write and leaves the destination and the directory as they
// were; without an error the destination gets the data.
func TestWriteBeforeRenameFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "r.json")
	if err := os.WriteFile(dest, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("refused")
	var seen []byte
	err := WriteWith(dest, []byte("new"), Options{BeforeRename: func(f *os.File) error {
		seen, _ = os.ReadFile(filepath.Join(dir, filepath.Base(f.Name())))
		return refuse
	}})
	if !errors.Is(err, refuse) {
		t.Errorf("WriteWith = %v, want the hook's error", err)
	}
	if string(seen) != "new" {
		t.Errorf("the hook saw a temporary file holding %q, want all the data", seen)
	}
	if b, _ := os.ReadFile(dest); string(b) != "old" {
		t.Errorf("the file holds %q", b)
	}
	assertOnly(t, dir, "r.json")
	if err := WriteWith(dest, []byte("new"), Options{BeforeRename: func(*os.File) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	assertReplaced(t, dir, dest, "", "new")
}

// TestWriteRaceAtTheDestination: what the server puts at the destination
// while the data is being written cannot take the write. A directory makes
// it fail (saying so, and leaving no temporary file); a FIFO or a link is
// replaced by the whole file, without blocking or writing through it.
func TestWriteRaceAtTheDestination(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		plant      func(path string) error
	}{
		{"directory", "not a regular file (a directory)", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"fifo", "", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"symlink", "", func(p string) error { return os.Symlink(outside, p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "r.json")
			orig := writeTo
			writeTo = func(f *os.File, data []byte) (int, error) {
				if err := tc.plant(dest); err != nil {
					t.Errorf("planting a %s: %v", tc.name, err)
				}
				return f.Write(data)
			}
			defer func() { writeTo = orig }()
			err := Write(dest, []byte("whole"), 0o644)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Write = %v, want %q", err, tc.want)
				}
				assertOnly(t, dir, "r.json")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertReplaced(t, dir, dest, outside, "whole")
		})
	}
}
