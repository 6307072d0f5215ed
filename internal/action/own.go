package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
)

// writeFile writes data at path, a file the inputs asked for, whole or not
// at all (see [boundedfile.WriteWith]: a symbolic link at path is replaced,
// never followed). A path inside workspace is written through an [os.Root]
// of it, so no symbolic link can take the write (or the chown) outside; a
// path outside the workspace is written as it is.
//
// The Docker action runs as root, so what it writes into the workspace would
// be root's, and a self-hosted runner's next checkout could not clean it up.
// When owner gives the workspace owner's uid and gid (see
// [workspaceOwner]), the file and every directory written for it are handed
// to that owner: the file while it is still a temporary file only this
// process holds open, before it is renamed into place, and the directories
// without following symbolic links ([os.Root.Lchown]). A failed chown is
// returned as chownErr: the file is written all the same.
func writeFile(workspace, path string, data []byte, owner func() (uid, gid int, ok bool)) (chownErr, err error) {
	rel, inside := within(workspace, path)
	if !inside {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		return nil, boundedfile.Write(path, data, 0o644)
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	created, err := missingDirs(root, filepath.Dir(rel))
	if err != nil {
		return nil, err
	}
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return nil, err
	}
	uid, gid, chown := owner()
	var errs []error
	opts := boundedfile.Options{Perm: 0o644}
	if chown {
		opts.BeforeRename = func(f *os.File) error {
			if err := f.Chown(uid, gid); err != nil {
				errs = append(errs, fmt.Errorf("chown %s: %w", rel, errors.Unwrap(err)))
			}
			return nil
		}
	}
	if err := boundedfile.WriteIn(root, rel, data, opts); err != nil {
		return nil, err
	}
	if !chown {
		return nil, nil
	}
	for _, p := range created {
		if err := root.Lchown(p, uid, gid); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("handing it to the workspace owner %d:%d: %w", uid, gid, errors.Join(errs...)), nil
	}
	return nil, nil
}

// within returns path relative to workspace when it lies inside it.
func within(workspace, path string) (string, bool) {
	if workspace == "" {
		return "", false
	}
	rel, err := filepath.Rel(workspace, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// missingDirs lists, outermost first, the directories of dir (relative to
// root) that do not exist yet: those MkdirAll will create.
func missingDirs(root *os.Root, dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		_, err := root.Lstat(d)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append([]string{d}, missing...)
	}
	return missing, nil
}
