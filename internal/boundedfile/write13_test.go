//go:build unix

package boundedfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteFIFO checks that Write refuses a FIFO at once, with no reader
// to unblock it, and writes a regular file, replacing what it held.
func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "r.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- Write(fifo, []byte("x"), 0o644) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("no error writing to a FIFO")
		}
	case <-time.After(5 * time.Second):
		f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			defer f.Close()
		}
		<-done
		t.Fatal("Write blocked on a FIFO")
	}
	file := filepath.Join(dir, "r.md")
	if err := os.WriteFile(file, []byte("a longer old text"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(file, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("file holds %q", b)
	}
}
