//go:build unix

package serve

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
)

// openDest opens the directory of path for writeNew, until the test ends.
func openDest(t *testing.T, path string) *boundedfile.Dest {
	t.Helper()
	d, err := boundedfile.OpenDest(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestWriteNewKeepsAPlantedLink: output_path is only ever created. A link
// planted there (by the target during the run, say) is kept and not
// written through; a new path gets the whole report.
func TestWriteNewKeepsAPlantedLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "r.json")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := writeNew(openDest(t, link), []byte("{}")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("writeNew over a link = %v, want ErrExist", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Errorf("the link is gone: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep" {
		t.Errorf("written through the link: %q", b)
	}

	fresh := filepath.Join(dir, "new.json")
	if err := writeNew(openDest(t, fresh), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != "{}" {
		t.Errorf("new file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}
