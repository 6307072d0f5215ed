// Package boundedfile reads and writes files that a user (or a hostile
// report's author) names. It reads only regular files, and only up to a
// size, so that /dev/zero, a FIFO or a huge file cannot hang mcp-fuzz or
// exhaust its memory. It writes whole files, through a temporary file
// renamed into place, never through a symbolic link nor onto a FIFO, a
// device or a directory that the server under test left at the path.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is returned for a file over the size limit.
var ErrTooLarge = errors.New("file too large")

// Read returns the contents of the regular file at path, or an error when it
// is not a regular file (a directory, a device, a FIFO, a socket) or holds
// more than max bytes.
func Read(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, kind(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, ErrTooLarge, st.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have grown since the stat, or be a /proc file whose size
	// says 0: read one byte more than allowed to tell.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w: over %d bytes", path, ErrTooLarge, max)
	}
	return b, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
