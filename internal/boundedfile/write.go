package boundedfile

import (
	"fmt"
	"os"
)

// Write writes data to the file at path, created with perm when missing,
// which must be a regular file. It opens without blocking and refuses
// anything else: the server under test runs in the working directory, and
// a FIFO it left where a report goes would block the open (or the write)
// until a reader came, which none does.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteWith(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, perm) }, path, data)
}

// WriteWith is [Write] through open, which opens the file named name with
// the flags it is given (an [os.Root]'s OpenFile, say).
func WriteWith(open func(flag int) (*os.File, error), name string, data []byte) error {
	f, err := open(os.O_WRONLY | os.O_CREATE | oNonblock)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s)", name, kind(st.Mode()))
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Close()
}
