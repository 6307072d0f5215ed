package security

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAreaLayout(t *testing.T) {
	t.Parallel()
	a, err := NewArea(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(a.Scratch)
	if err != nil || fi.Mode().Perm() != 0o777 {
		t.Fatalf("scratch %v, %v: want a directory any uid can write", fi, err)
	}
	if len(a.Canaries) != 4 {
		t.Fatalf("%d canaries, want 4", len(a.Canaries))
	}
	seen := map[string]bool{}
	for _, c := range a.Canaries {
		b, err := os.ReadFile(c.Path)
		if err != nil || !strings.Contains(string(b), c.Token) {
			t.Errorf("canary %s at %s: %q, %v", c.Where, c.Path, b, err)
		}
		if seen[c.Token] || !strings.HasPrefix(c.Token, tokenPrefix) {
			t.Errorf("token %q repeated or without its prefix", c.Token)
		}
		seen[c.Token] = true
		if strings.HasPrefix(c.Path, a.Scratch+string(filepath.Separator)) {
			t.Errorf("canary %s inside the scratch area: %s", c.Where, c.Path)
		}
	}
	sib, _ := a.Canary(CanarySibling)
	if !strings.HasPrefix(sib.Path, a.Scratch) {
		t.Errorf("sibling %s does not begin with the scratch's name %s", sib.Path, a.Scratch)
	}
	link, _ := a.Canary(CanarySymlink)
	if got, err := os.ReadFile(filepath.Join(a.Scratch, a.Link, canaryName)); err != nil || !strings.Contains(string(got), link.Token) {
		t.Errorf("the symlink does not lead to its canary: %q, %v", got, err)
	}
	fixed, _ := a.Canary(CanaryTemp)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a.Run, fixed.Path, a.Temp} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind after Close: %v", p, err)
		}
	}
}

func TestAreaCloseAfterServerLockedADirectory(t *testing.T) {
	t.Parallel()
	a, err := NewArea(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(a.Scratch, "d")
	if err := os.MkdirAll(filepath.Join(locked, "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Lstat(a.Run); !os.IsNotExist(err) {
		t.Errorf("run directory left behind: %v", err)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	if got := Expand("--root={scratch}/data:{scratch}", "/tmp/x"); got != "--root=/tmp/x/data:/tmp/x" {
		t.Errorf("Expand = %q", got)
	}
	if !Uses("a{scratch}") || Uses("{scrat") {
		t.Error("Uses")
	}
}
