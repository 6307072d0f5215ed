//go:build unix

package action

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteFileHostileTargets checks what writeFile does when the file it
// is asked for is not one: a FIFO (the server under test runs in the
// workspace and may make one where the report goes) must not block the
// step, a directory must fail, a symbolic link at the file is replaced by
// the report, and a directory link out of the workspace must fail or be
// written in the workspace, never outside.
func TestWriteFileHostileTargets(t *testing.T) {
	t.Parallel()
	noOwner := func() (int, int, bool) { return 0, 0, false }
	outside := t.TempDir()
	secret := filepath.Join(outside, "passwd")
	if err := os.WriteFile(secret, []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, setup := range map[string]func(ws string) string{
		"fifo": func(ws string) string {
			p := filepath.Join(ws, "r.sarif")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			return p
		},
		"fifo outside": func(ws string) string {
			p := filepath.Join(t.TempDir(), "r.sarif")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			return p
		},
		"directory": func(ws string) string {
			p := filepath.Join(ws, "r.sarif")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"symlink file out": func(ws string) string {
			p := filepath.Join(ws, "r.sarif")
			if err := os.Symlink(secret, p); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"symlink dir out": func(ws string) string {
			if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(ws, "out", "passwd")
		},
		"dotdot through symlink": func(ws string) string {
			if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(ws, "out", "..", "x", "passwd")
		},
	} {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			path := setup(ws)
			done := make(chan error, 1)
			go func() {
				_, err := writeFile(ws, path, []byte("report"), noOwner)
				done <- err
			}()
			select {
			case err := <-done:
				t.Logf("err %v", err)
				switch name {
				case "dotdot through symlink":
				case "symlink file out":
					fi, lerr := os.Lstat(path)
					b, _ := os.ReadFile(path)
					if err != nil || lerr != nil || !fi.Mode().IsRegular() || string(b) != "report" {
						t.Errorf("the link was not replaced by the report: %v, %v, %q", err, fi, b)
					}
				default:
					if err == nil {
						t.Errorf("no error writing to a %s", name)
					}
				}
			case <-time.After(5 * time.Second):
				// Unblock the writer.
				f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err == nil {
					defer f.Close()
				}
				<-done
				t.Fatalf("writeFile blocked on %s", name)
			}
			if b, _ := os.ReadFile(secret); string(b) != "root:x:0:0\n" {
				t.Errorf("the file outside the workspace was written: %q", b)
			}
		})
	}
}
