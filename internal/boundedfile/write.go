package boundedfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// CheckWritable says whether [Write] can write the file at path, without
// writing it: an existing file must be a regular file open for writing;
// a missing one needs an existing directory in which a file can be
// created (one is created and removed to find out: permissions, a
// read-only file system or /proc all say no only then). A front end
// calls it before a long run, so that a report that cannot be written is
// refused before the run rather than lost after it.
func CheckWritable(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%s)", kind(st.Mode()))
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY|oNonblock, 0)
		if err != nil {
			return fmt.Errorf("cannot write it: %w", cause(err))
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	f, err := os.CreateTemp(dir, ".mcp-fuzz-check-*")
	if err != nil {
		return fmt.Errorf("cannot create a file in %s: %w", dir, cause(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// cause is err without the path a *fs.PathError repeats.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
