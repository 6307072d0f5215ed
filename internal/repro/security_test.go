package repro

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func scratchOf(dir string) *report.Scratch {
	return &report.Scratch{
		Dir: filepath.Join(dir, "run", "scratch"),
		Canaries: []report.Canary{
			{Where: "parent", Path: filepath.Join(dir, "run", "canary.txt"), Token: "mcpfz00112233aabbccdd"},
			{Where: "symlink", Path: filepath.Join(dir, "run", "outside", "canary.txt"), Token: "mcpfz44556677eeff0011"},
			{Where: "temp", Path: filepath.Join(dir, "mcp-fuzz-canary-1", "canary.txt"), Token: "mcpfz8899aabbccddeeff"},
		},
		Link:         filepath.Join(dir, "run", "scratch", "escape"),
		LinkTarget:   filepath.Join(dir, "run", "outside"),
		ListenerPort: "40123",
	}
}

// The reproducer of a path traversal, run as printed after the run's
// scratch area is gone, makes the canaries again: a server that reads
// through the symlink shows the token.
func TestSecurityReproducerMakesTheCanariesAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := scratchOf(dir)
	// The "server" reads its input, then prints what lies behind the
	// symlink, as a vulnerable file tool would.
	server := []string{"sh", "-c", "cat >/dev/null; cat " + ShellQuote(filepath.Join(s.Link, "canary.txt"))}
	rep := &report.Report{Scratch: s}
	c := report.Case{ID: "read/security/path#path_traversal.symlink", Kind: report.KindSecurity, Arguments: []byte(`{"path":"escape/canary.txt"}`)}
	r := Case(rep, Target{Command: server}, "read", c)
	if !strings.HasPrefix(r.Shell, "if mkdir ") {
		t.Fatalf("shell %q does not make the scratch area first", r.Shell)
	}
	out, err := exec.Command("sh", "-c", r.Shell).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", r.Shell, err, out)
	}
	if !strings.Contains(string(out), "mcpfz44556677eeff0011") {
		t.Errorf("the reproducer did not show the symlink canary's token:\n%s\n%s", r.Shell, out)
	}
	for _, p := range []string{filepath.Join(dir, "run"), filepath.Join(dir, "mcp-fuzz-canary-1")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind by the reproducer: %v", p, err)
		}
	}
	// Something planted where the run's directory was stops the
	// reproducer before it writes anything through it.
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "run", "canary.txt")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", r.Shell).CombinedOutput(); err == nil {
		t.Errorf("the reproducer ran over a planted directory:\n%s", out)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the planted symlink's target was written: %q", b)
	}
	// A case of another kind is left as it was.
	plain := Case(rep, Target{Command: server}, "read", report.Case{ID: "read/valid", Kind: report.KindValid, Arguments: []byte(`{}`)})
	if strings.Contains(plain.Shell, "mkdir") {
		t.Errorf("a valid call's reproducer makes the scratch area: %q", plain.Shell)
	}
}

func TestSecurityReproducerStartsAListener(t *testing.T) {
	t.Parallel()
	s := scratchOf(t.TempDir())
	rep := &report.Report{Scratch: s}
	for variant, bind := range map[string]string{"loopback": "--bind 127.0.0.1", "ipv6": "--bind ::1"} {
		c := report.Case{ID: "fetch/security/url#ssrf." + variant, Kind: report.KindSecurity, Arguments: []byte(`{"url":"http://127.0.0.1:40123/mcp-fuzz/mcpfz1"}`)}
		r := Case(rep, Target{Command: []string{"srv"}}, "fetch", c)
		if !strings.Contains(r.Shell, "python3 -m http.server 40123 "+bind+" --directory "+s.Dir+" &") || !strings.HasSuffix(r.Shell, "kill $!; }; rm -rf "+filepath.Dir(s.Dir)+"; else false; fi") {
			t.Errorf("%s: shell %q", variant, r.Shell)
		}
		if strings.Contains(r.Shell, "canary") {
			t.Errorf("%s: a request-forgery reproducer writes canaries: %q", variant, r.Shell)
		}
	}
}

// The family is read from the case id's last '#', whatever the tool's
// name holds.
func TestSecurityReproducerFamilyFromTheLastHash(t *testing.T) {
	t.Parallel()
	rep := &report.Report{Scratch: scratchOf(t.TempDir())}
	c := report.Case{ID: "cat#command_injection.x/security/path#path_traversal.dotdot", Kind: report.KindSecurity, Arguments: []byte(`{"path":"../canary.txt"}`)}
	if r := Case(rep, Target{Command: []string{"srv"}}, "cat#command_injection.x", c); !strings.Contains(r.Shell, "mcpfz00112233aabbccdd") {
		t.Errorf("no canary for a path traversal of a tool named with '#': %q", r.Shell)
	}
}
