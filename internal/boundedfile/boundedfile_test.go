package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 5); err != nil || string(b) != "hello" {
		t.Errorf("Read at the limit = %q, %v", b, err)
	}
	if _, err := Read(small, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read over the limit: %v, want ErrTooLarge", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a named pipe", dir: "a directory", "/dev/zero": "a device"} {
		if _, err := Read(path, 1<<20); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%s) = %v, want a refusal naming %s", path, err, want)
		}
	}
	if _, err := Read(filepath.Join(dir, "none"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
	// /proc files say they are empty and are not.
	if _, err := Read("/proc/self/status", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("/proc/self/status with a 10-byte limit: %v, want ErrTooLarge", err)
	}
}
