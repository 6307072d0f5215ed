package boundedfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options says how [WriteWith] and [WriteIn] write a file.
type Options struct {
	// Perm is the mode of the file written (before the umask); zero means
	// 0o644. Only its permission bits are used.
	Perm os.FileMode
	// NoReplace makes the write fail, with an error matching
	// [fs.ErrExist], when anything (a file, a symbolic link) is at the
	// path already, rather than replace it.
	NoReplace bool
	// BeforeRename, when set, is called with the temporary file once it
	// holds all the data and is synced, before it takes the destination's
	// name: to chown it, say. An error it returns fails the write, and
	// the destination is left as it was.
	BeforeRename func(*os.File) error
}

// writeTo writes data to the temporary file. Tests replace it to fail
// midway, as a full disk would.
var writeTo = func(f *os.File, data []byte) (int, error) { return f.Write(data) }

// Write writes data to the file at path, with mode perm (before the
// umask): see [WriteWith].
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteWith(path, data, Options{Perm: perm})
}

// WriteWith writes data to the file at path, whole or not at all.
//
// The server under test runs in the working directory and may learn where
// reports go, so the path is treated as hostile ground. The data goes to a
// new temporary file in the same directory (a random hidden name, created
// exclusively, so never through a link), which is synced and then renamed
// over path: a reader, or a run killed midway, sees the old content or the
// new one (or no file), never a part. On every error the temporary file is
// removed and path is left as it was.
//
// A directory, a FIFO, a device or a socket at path is refused ("not a
// regular file (a named pipe)"), without opening it: nothing blocks. A
// symbolic link at path is replaced by the new regular file, never
// followed: the write stays in the directory the caller chose, whatever
// the link pointed at. A replaced file is a new file: its mode comes from
// o.Perm (less the umask), its owner is this process, and hard links to the
// old file keep the old content.
//
// The directories leading to path are followed as given (links included),
// as they are when WriteWith is called: only the last component is guarded.
// To write into the directory as it was before the server started, open
// it then with [OpenDest].
func WriteWith(path string, data []byte, o Options) error {
	dir, file, err := split(path)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return write(root, file, path, data, o)
}

// WriteIn is [WriteWith] for the file called name inside root: every step
// (the check, the temporary file, the rename) goes through root, so nothing
// outside root is written, even when a directory of name is a link out of
// it (that is an error).
func WriteIn(root *os.Root, name string, data []byte, o Options) error {
	if _, _, err := split(name); err != nil {
		return err
	}
	return write(root, name, name, data, o)
}

// split returns the directory and the file name of path, or an error when
// path names no file (it is empty, or ends in a separator, "." or "..").
func split(path string) (dir, file string, err error) {
	dir, file = filepath.Split(path)
	if file == "" || file == "." || file == ".." {
		return "", "", fmt.Errorf("%q: not a file name", path)
	}
	if dir == "" {
		dir = "."
	}
	return dir, file, nil
}

// write writes data to name in root (shown as shown in errors) through a
// temporary file renamed into place.
func write(root *os.Root, name, shown string, data []byte, o Options) (err error) {
	if err := checkTarget(root, name, shown, o.NoReplace); err != nil {
		return err
	}
	perm := o.Perm.Perm()
	if o.Perm == 0 {
		perm = 0o644
	}
	f, tmp, err := createTemp(root, filepath.Dir(name), perm)
	if err != nil {
		return fmt.Errorf("%s: creating a temporary file: %w", shown, cause(err))
	}
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			_ = root.Remove(tmp)
		}
	}()
	if _, err := writeTo(f, data); err != nil {
		return fmt.Errorf("%s: %w", shown, cause(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", shown, cause(err))
	}
	if o.BeforeRename != nil {
		if err := o.BeforeRename(f); err != nil {
			return err
		}
	}
	err = f.Close()
	f = nil
	if err != nil {
		return fmt.Errorf("%s: %w", shown, cause(err))
	}
	if o.NoReplace {
		return link(root, tmp, name, shown)
	}
	if err := root.Rename(tmp, name); err != nil {
		// Something took the name since checkTarget: say what.
		if cerr := checkTarget(root, name, shown, false); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%s: %w", shown, cause(err))
	}
	return nil
}

// checkTarget refuses what is at name in root when it may not be replaced:
// a directory, FIFO, device or socket, or anything at all when noReplace.
func checkTarget(root *os.Root, name, shown string, noReplace bool) error {
	st, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case noReplace:
		return fmt.Errorf("%s: %w", shown, fs.ErrExist)
	case !st.Mode().IsRegular() && st.Mode().Type() != fs.ModeSymlink:
		return fmt.Errorf("%s: not a regular file (%s)", shown, kind(st.Mode()))
	}
	return nil
}

// link gives the complete temporary file tmp the name name, failing when
// name exists, and removes tmp. A hard link cannot replace anything; where
// the file system has none, a rename after a last check does (a file
// planted between the two is replaced: still a whole regular file, no
// link followed).
func link(root *os.Root, tmp, name, shown string) error {
	err := root.Link(tmp, name)
	if err == nil {
		_ = root.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", shown, fs.ErrExist)
	}
	if err := checkTarget(root, name, shown, true); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		return fmt.Errorf("%s: %w", shown, cause(err))
	}
	return nil
}

// tempPrefix starts the name of every temporary file written: a hidden
// file, left behind only by a process killed mid-write.
const tempPrefix = ".mcp-fuzz-"

// createTemp creates a new file in dir (inside root) with a random name,
// exclusively: a name taken (by anything, a link included) is never opened,
// another is tried.
func createTemp(root *os.Root, dir string, perm os.FileMode) (*os.File, string, error) {
	var err error
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, tempPrefix+hex.EncodeToString(b[:])+".tmp")
		var f *os.File
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", err
}

// CheckWritable says whether [Write] can write the file at path, without
// writing it: what is at path must be a regular file or a symbolic link
// (which Write replaces, not follows), and its directory must exist and
// let a file be created in it (one is created and removed to find out:
// permissions, a read-only file system or /proc all say no only then). A
// front end calls it before a long run, so that a report that cannot be
// written is refused before the run rather than lost after it.
func CheckWritable(path string) error {
	dir, _, err := split(path)
	if err != nil {
		return err
	}
	st, err := os.Lstat(path)
	switch {
	case err == nil && !st.Mode().IsRegular() && st.Mode().Type() != fs.ModeSymlink:
		return fmt.Errorf("not a regular file (%s)", kind(st.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("directory %s does not exist", filepath.Clean(dir))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Clean(dir), cause(err))
	}
	defer root.Close()
	f, tmp, err := createTemp(root, ".", 0o600)
	if err != nil {
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Clean(dir), cause(err))
	}
	f.Close()
	return root.Remove(tmp)
}

// cause is err without the path a *fs.PathError or *os.LinkError repeats.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
