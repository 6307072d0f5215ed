//go:build unix

package boundedfile

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killEnv, set in the environment of this test binary run again, makes it
// a writer to be killed (see [TestMain]): "MODE:PATH".
const killEnv = "BOUNDEDFILE_KILLED_WRITER"

// killedSize is the size of the file the killed writer writes.
const killedSize = 50 << 20

// TestMain runs the tests, or, with killEnv set, the writer
// TestWriteKilled kills.
func TestMain(m *testing.M) {
	if v := os.Getenv(killEnv); v != "" {
		os.Exit(killedWriter(v))
	}
	os.Exit(m.Run())
}

// pattern returns n bytes whose every prefix differs from every other
// content a test writes.
func pattern(n int) []byte {
	b := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)
	return b[:n]
}

// killedWriter writes killedSize bytes with Write to the path in spec,
// saying "writing" on stdout as it starts. In mode "stall" it stops
// halfway, after writing half the data, and waits there for the kill
// (reading stdin, which the test keeps open);
// in mode "run" it writes straight on.
func killedWriter(spec string) int {
	mode, path, _ := strings.Cut(spec, ":")
	if mode == "stall" {
		writeTo = func(f *os.File, data []byte) (int, error) {
			n, err := f.Write(data[:len(data)/2])
			if err != nil {
				return n, err
			}
			fmt.Println("writing")
			_, _ = io.Copy(io.Discard, os.Stdin) // killed here: stdin stays open
			return n, errors.New("stdin closed before the kill")
		}
	} else {
		fmt.Println("writing")
	}
	if err := Write(path, pattern(killedSize), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestWriteKilled kills a process writing a 50 MiB file with SIGKILL once
// it has started: the destination then holds its old content, or nothing
// when there was none, or the whole new file, never a prefix. "stall" is
// killed for certain mid-write; "run" wherever it got to.
func TestWriteKilled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		old  bool
	}{{"stall", false}, {"stall", true}, {"run", false}, {"run", true}} {
		name := fmt.Sprintf("%s old=%v", tc.mode, tc.old)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dest := filepath.Join(dir, "r.xml")
			if tc.old {
				if err := os.WriteFile(dest, []byte("<old/>"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), killEnv+"="+tc.mode+":"+dest)
			cmd.Stderr = os.Stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if line != "writing\n" {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("the writer said %q, %v", line, err)
			}
			if tc.mode == "run" {
				waitForTemp(dir)
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_, _ = io.Copy(io.Discard, out)
			err = cmd.Wait()
			if ctx.Err() != nil {
				t.Fatal("the writer outlived its deadline")
			}
			if tc.mode == "stall" && (err == nil || !strings.Contains(err.Error(), "killed")) {
				t.Errorf("the stalled writer was not killed: %v", err)
			}

			b, rerr := os.ReadFile(dest)
			switch {
			case errors.Is(rerr, fs.ErrNotExist) && !tc.old:
			case rerr != nil:
				t.Fatal(rerr)
			case tc.old && string(b) == "<old/>":
			case len(b) == killedSize && bytes.Equal(b, pattern(killedSize)):
				if tc.mode == "stall" {
					t.Error("the stalled writer got its file in place")
				}
			default:
				t.Errorf("after the kill the file holds %d bytes: neither the old content nor the whole new one", len(b))
			}
			// What a killed writer may leave is a hidden temporary file,
			// nothing else.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "r.xml" && !(strings.HasPrefix(e.Name(), tempPrefix) && strings.HasSuffix(e.Name(), ".tmp")) {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

// waitForTemp returns once a temporary file holding data shows in dir, or
// after two seconds (the writer may be done by then).
func waitForTemp(dir string) {
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), tempPrefix) && fi.Size() > 0 {
				return
			}
		}
	}
}
