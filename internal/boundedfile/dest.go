package boundedfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dest is a file to be written later, whose directory was opened when the
// Dest was, and is held open until [Dest.Close].
//
// A front end opens a Dest for each report before it starts the server
// under test: the directories of the path are resolved then, symbolic
// links included, as the user laid them out. The server may rename the
// directory, or replace it with a symbolic link to another one, while it
// runs; [Dest.Write] still writes into the directory opened, never where
// the path leads by then. A directory that was moved keeps the file
// (under its new name: [Dest.Moved] tells); one that was removed makes
// the write fail, naming the path, rather than write anywhere else.
type Dest struct {
	path string   // as given, shown in errors
	dir  string   // the directory of path, as given
	name string   // the file name in dir
	root *os.Root // dir, as it was when opened
}

// OpenDest opens the directory of path, following symbolic links, for a
// later [Dest.Write] of path. It does not check what is at path: see
// [CheckWritable].
func OpenDest(path string) (*Dest, error) {
	dir, file, err := split(path)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", filepath.Clean(dir), cause(err))
	}
	return &Dest{path: path, dir: dir, name: file, root: root}, nil
}

// Path returns the path d was opened for.
func (d *Dest) Path() string { return d.path }

// Write is [WriteWith] for d's path, through the directory opened by
// [OpenDest]: every step (the check, the temporary file, the rename)
// happens in that directory, whatever its name leads to now. When the
// directory was removed since, Write fails saying so.
func (d *Dest) Write(data []byte, o Options) error {
	if d.root == nil {
		return fmt.Errorf("%s: %w", d.path, os.ErrClosed)
	}
	err := write(d.root, d.name, d.path, data, o)
	if errors.Is(err, fs.ErrNotExist) && d.removed() {
		return fmt.Errorf("%s: directory %s was removed during the run: %w", d.path, filepath.Clean(d.dir), fs.ErrNotExist)
	}
	return err
}

// removed says whether d's directory was deleted: an open directory that
// is no longer linked anywhere has no links left (Linux), or cannot be
// examined at all. Elsewhere the write's own error stands.
func (d *Dest) removed() bool {
	st, err := d.root.Stat(".")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return linkCount(st) == 0
}

// Moved says whether d's directory is no longer the one its path leads to
// (it was renamed, replaced by a symbolic link or another directory, or
// removed): a file written by [Dest.Write] is then not at the path.
func (d *Dest) Moved() bool {
	if d.root == nil {
		return false
	}
	held, err := d.root.Stat(".")
	if err != nil {
		return true
	}
	now, err := os.Stat(d.dir)
	return err != nil || !os.SameFile(held, now)
}

// Close closes d's directory. It may be called more than once.
func (d *Dest) Close() error {
	if d.root == nil {
		return nil
	}
	err := d.root.Close()
	d.root = nil
	return err
}
