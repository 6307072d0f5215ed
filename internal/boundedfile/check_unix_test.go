//go:build unix

package boundedfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckWritable: a new file in an existing directory, an existing
// regular file or a symbolic link (which Write replaces) can be written;
// a directory, a FIFO, a missing directory or /proc cannot, each saying
// why, and nothing is left behind.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("/etc/passwd", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "new.json"), ""},
		{existing, ""},
		{link, ""},
		{dir, "not a regular file (a directory)"},
		{fifo, "not a regular file (a named pipe)"},
		{filepath.Join(dir, "no", "such.json"), "directory " + filepath.Join(dir, "no") + " does not exist"},
		{"/proc/x.json", "cannot create a file in /proc"},
	} {
		err := CheckWritable(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckWritable(%s) = %v, want nil", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckWritable(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Errorf("the existing file was changed: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("left behind: %v", entries)
	}
}
