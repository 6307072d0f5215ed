//go:build unix

package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// owner is the workspace owner of these tests: a uid and gid no account has.
const owner = 12345

// ownedWorkspace returns a workspace owned by [owner], as the runner's
// checkout is on a self-hosted runner while the Docker action runs as root.
func ownedWorkspace(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, as the Docker action runs")
	}
	ws := t.TempDir()
	if err := os.Chown(ws, owner, owner); err != nil {
		t.Fatal(err)
	}
	return ws
}

func ownerOf(t *testing.T, path string) int {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != st.Gid {
		t.Errorf("%s: uid %d, gid %d", path, st.Uid, st.Gid)
	}
	return int(st.Uid)
}

func TestWriteFileHandsItToTheWorkspaceOwner(t *testing.T) {
	t.Parallel()
	ws := ownedWorkspace(t)
	own := func() (int, int, bool) { return workspaceOwner(ws) }
	if uid, gid, ok := own(); uid != owner || gid != owner || !ok {
		t.Fatalf("workspaceOwner = %d, %d, %v; want %d, %d, true", uid, gid, ok, owner, owner)
	}
	// A directory that exists already keeps its owner.
	if err := os.Mkdir(filepath.Join(ws, "existing"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"r.json", "out/sub/r.sarif", "existing/r.json"} {
		if chownErr, err := writeFile(ws, filepath.Join(ws, p), []byte("{}"), own); err != nil || chownErr != nil {
			t.Fatalf("%s: %v, %v", p, err, chownErr)
		}
	}
	for p, want := range map[string]int{
		"r.json": owner, "out": owner, "out/sub": owner, "out/sub/r.sarif": owner,
		"existing": 0, "existing/r.json": owner,
	} {
		if got := ownerOf(t, filepath.Join(ws, p)); got != want {
			t.Errorf("%s is owned by %d, want %d", p, got, want)
		}
	}

	// Outside the workspace: written, not chowned.
	outside := t.TempDir()
	if _, err := writeFile(ws, filepath.Join(outside, "abs", "r.json"), []byte("{}"), own); err != nil {
		t.Fatal(err)
	}
	if got := ownerOf(t, filepath.Join(outside, "abs", "r.json")); got != 0 {
		t.Errorf("a file outside the workspace was chowned to %d", got)
	}

	// Symbolic links out of the workspace are not followed: a directory
	// link fails the write, and a link at the file itself is replaced by
	// the file, handed to the workspace owner like any other.
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "target.json")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(ws, "file-link.json")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"link/r.json", "link/new/r.json"} {
		if _, err := writeFile(ws, filepath.Join(ws, p), []byte("{}"), own); err == nil {
			t.Errorf("%s: written through a link out of the workspace", p)
		}
	}
	fileLink := filepath.Join(ws, "file-link.json")
	if chownErr, err := writeFile(ws, fileLink, []byte("{}"), own); err != nil || chownErr != nil {
		t.Errorf("file-link.json: %v, %v", err, chownErr)
	}
	if fi, err := os.Lstat(fileLink); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("file-link.json is not a regular file now: %v, %v", fi, err)
	} else if b, _ := os.ReadFile(fileLink); string(b) != "{}" || ownerOf(t, fileLink) != owner {
		t.Errorf("file-link.json holds %q, owned by %d", b, ownerOf(t, fileLink))
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 { // abs, target.json
		t.Errorf("the outside directory has %d entries, want 2", len(entries))
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" || ownerOf(t, target) != 0 {
		t.Errorf("the link's target was changed: %q, owner %d", b, ownerOf(t, target))
	}

	// Not root, or the workspace is root's: files stay as written.
	none := func() (int, int, bool) { return 0, 0, false }
	if _, err := writeFile(ws, filepath.Join(ws, "mine", "r.json"), []byte("{}"), none); err != nil {
		t.Fatal(err)
	}
	if got := ownerOf(t, filepath.Join(ws, "mine", "r.json")); got != 0 {
		t.Errorf("chowned to %d without an owner to hand it to", got)
	}
}

// TestActionFilesBelongToTheWorkspaceOwner runs the whole Action, as root,
// in a workspace of another owner: the report and the SARIF file, and the
// directories made for them, end up the workspace owner's.
func TestActionFilesBelongToTheWorkspaceOwner(t *testing.T) {
	t.Parallel()
	ws := ownedWorkspace(t)
	files := t.TempDir() // the runner's file commands live outside the workspace
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(files, "o"), "GITHUB_STEP_SUMMARY": filepath.Join(files, "s"),
		"INPUT_COMMAND": fixture.Build(t, "clean"), "INPUT_TIMEOUT": "2", "INPUT_CASES": "2", "INPUT_COMMENT": "off",
		"INPUT_REPORT": "reports/mcp-fuzz.json", "INPUT_SARIF": "mcp-fuzz.sarif",
	}
	var out bytes.Buffer
	if code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out}); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	for _, p := range []string{"reports", "reports/mcp-fuzz.json", "mcp-fuzz.sarif"} {
		if got := ownerOf(t, filepath.Join(ws, p)); got != owner {
			t.Errorf("%s is owned by %d, want the workspace owner %d", p, got, owner)
		}
	}
	if strings.Contains(out.String(), "workspace owner") {
		t.Errorf("a chown failed:\n%s", out.String())
	}
}
