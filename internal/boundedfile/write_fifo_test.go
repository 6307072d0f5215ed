//go:build unix

package boundedfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWriteRefusesNonRegularFiles: a FIFO (with no reader to unblock an
// open), a directory or a device at the destination is refused at once,
// naming what it is, through a path and through an os.Root, and nothing
// is left behind. The timeout only makes a hang fail fast.
func TestWriteRefusesNonRegularFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		make       func(path string) error
	}{
		{"fifo", "not a regular file (a named pipe)", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"directory", "not a regular file (a directory)", func(p string) error { return os.Mkdir(p, 0o755) }},
		// A char device with /dev/null's numbers: creating one needs root.
		{"device", "not a regular file (a device)", func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|3) }},
	} {
		for _, via := range []string{"path", "root"} {
			t.Run(tc.name+" via "+via, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				dest := filepath.Join(dir, "r.json")
				if err := tc.make(dest); err != nil {
					t.Skipf("cannot make a %s: %v", tc.name, err)
				}
				done := make(chan error, 1)
				go func() {
					if via == "path" {
						done <- Write(dest, []byte("x"), 0o644)
						return
					}
					root, err := os.OpenRoot(dir)
					if err != nil {
						done <- err
						return
					}
					defer root.Close()
					done <- WriteIn(root, "r.json", []byte("x"), Options{})
				}()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("Write over a %s = %v, want %q", tc.name, err, tc.want)
					}
				case <-time.After(10 * time.Second):
					// Unblock the writer before failing.
					if f, err := os.OpenFile(dest, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
						defer f.Close()
					}
					<-done
					t.Fatalf("Write blocked on a %s", tc.name)
				}
				if fi, err := os.Lstat(dest); err != nil || fi.Mode().IsRegular() {
					t.Errorf("the %s was replaced: %v, %v", tc.name, fi, err)
				}
				assertOnly(t, dir, "r.json")
			})
		}
	}
}
