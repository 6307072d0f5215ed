package security

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Placeholder is the text replaced by the scratch directory's path in the
// server's command, arguments, environment values and working directory.
const Placeholder = "{scratch}"

// The canaries around the scratch area, by where they lie.
const (
	CanaryParent  = "parent"  // in the scratch directory's parent
	CanarySibling = "sibling" // in a sibling whose name begins with the scratch's name
	CanaryTemp    = "temp"    // in a directory of its own in the temporary directory, outside the run's
	CanarySymlink = "symlink" // behind a symlink inside the scratch that points out
)

// Canary is a file holding a unique random token: a server that returns
// the token read a file it should not have reached.
type Canary struct {
	Where string // CanaryParent, …
	Path  string // absolute
	Token string
}

// Area is a run's scratch directory and the canaries around it:
//
//	RUN/                      (0755, removed by Close)
//	RUN/canary.txt            parent canary
//	RUN/scratch/              the scratch area (writable by the server's uid)
//	RUN/scratch/escape -> RUN/outside
//	RUN/outside/canary.txt    symlink canary
//	RUN/scratch-outside/canary.txt  sibling canary
//	TMP/mcp-fuzz-canary-ID/canary.txt  temp canary
type Area struct {
	Run      string
	Scratch  string
	Canaries []Canary
	// Link is the name of the symlink inside Scratch, and LinkTarget
	// where it pointed when the area was made (the server may change it).
	Link, LinkTarget string
	// Temp is the directory of the temp canary.
	Temp string
}

// canaryName is the file name of the canaries in directories.
const canaryName = "canary.txt"

// NewArea makes a fresh scratch area and its canaries under dir (the
// system's temporary directory when dir is "").
func NewArea(dir string) (*Area, error) {
	run, err := os.MkdirTemp(dir, "mcp-fuzz-run-")
	if err != nil {
		return nil, fmt.Errorf("scratch area: %w", err)
	}
	a := &Area{Run: run, Scratch: filepath.Join(run, "scratch"), Link: "escape"}
	if err := a.build(); err != nil {
		a.Close()
		return nil, fmt.Errorf("scratch area: %w", err)
	}
	return a, nil
}

func (a *Area) build() error {
	// The server may run as another uid (docs/SANDBOX.md): it must be able
	// to reach the canaries (or a flaw could not be shown) and to write in
	// the scratch area.
	if err := os.Chmod(a.Run, 0o755); err != nil {
		return err
	}
	for _, d := range []string{a.Scratch, filepath.Join(a.Run, "outside"), a.Scratch + "-outside"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(a.Scratch, 0o777); err != nil {
		return err
	}
	a.LinkTarget = filepath.Join(a.Run, "outside")
	if err := os.Symlink(a.LinkTarget, filepath.Join(a.Scratch, a.Link)); err != nil {
		return err
	}
	temp, err := os.MkdirTemp(filepath.Dir(a.Run), "mcp-fuzz-canary-")
	if err != nil {
		return err
	}
	a.Temp = temp
	if err := os.Chmod(temp, 0o755); err != nil {
		return err
	}
	places := []struct{ where, path string }{
		{CanaryParent, filepath.Join(a.Run, canaryName)},
		{CanarySibling, filepath.Join(a.Scratch+"-outside", canaryName)},
		{CanaryTemp, filepath.Join(temp, canaryName)},
		{CanarySymlink, filepath.Join(a.Run, "outside", canaryName)},
	}
	for _, p := range places {
		tok, err := NewToken()
		if err != nil {
			return err
		}
		if err := os.WriteFile(p.path, []byte("mcp-fuzz canary "+tok+"\n"), 0o644); err != nil {
			return err
		}
		a.Canaries = append(a.Canaries, Canary{Where: p.where, Path: p.path, Token: tok})
	}
	return nil
}

// Canary returns the canary at where.
func (a *Area) Canary(where string) (Canary, bool) {
	for _, c := range a.Canaries {
		if c.Where == where {
			return c, true
		}
	}
	return Canary{}, false
}

// Close removes the area and its canaries.
func (a *Area) Close() error {
	var first error
	for _, dir := range []string{a.Temp, a.Run} {
		if dir == "" {
			continue
		}
		// The server may have made directories unwritable for us: make
		// them writable before removing (WalkDir does not follow links).
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		if err := os.RemoveAll(dir); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Expand replaces every {scratch} in s with the scratch directory's path.
func Expand(s, scratch string) string {
	return strings.ReplaceAll(s, Placeholder, scratch)
}

// Uses reports whether s names the scratch area.
func Uses(s string) bool { return strings.Contains(s, Placeholder) }

// tokenPrefix begins every token, so that a reader of a report sees what
// it is.
const tokenPrefix = "mcpfz"

// NewToken returns a unique token: "mcpfz" and 16 random hex digits.
func NewToken() (string, error) {
	h, err := randomHex(8)
	if err != nil {
		return "", err
	}
	return tokenPrefix + h, nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
