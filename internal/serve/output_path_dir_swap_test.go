//go:build unix

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestOutputPathDirSwap: the target renames the directory of output_path
// and puts a symbolic link to another directory in its place while it is
// audited. The report goes into the directory that was there when the
// audit started, and the note says so; the link's target gets nothing.
// The clean twin writes at output_path.
func TestOutputPathDirSwap(t *testing.T) {
	t.Parallel()
	server := fixture.Build(t, "clean")
	cs := connect(t)
	for _, swap := range []bool{false, true} {
		base := t.TempDir()
		for _, dir := range []string{"reports", "victim"} {
			if err := os.Mkdir(filepath.Join(base, dir), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		script := `exec "$0"`
		if swap {
			script = `cd "$1" && mv reports reports.orig && ln -s victim reports && exec "$0"`
		}
		path := filepath.Join(base, "reports", "r.json")
		var out AuditOutput
		call(t, cs, "audit", map[string]any{"command": []string{"sh", "-c", script, server, base}, "timeout_seconds": 2, "output_path": path, "report_format": "none"}, &out)
		if entries, _ := os.ReadDir(filepath.Join(base, "victim")); len(entries) != 0 {
			t.Errorf("swap %v: written into the link's target: %v", swap, entries)
		}
		written := path
		if swap {
			written = filepath.Join(base, "reports.orig", "r.json")
		}
		if b, err := os.ReadFile(written); err != nil || !strings.Contains(string(b), `"score"`) {
			t.Errorf("swap %v: %s = %.80q, %v", swap, written, b, err)
		}
		if moved := strings.Contains(out.Note, "output_path was moved or replaced"); moved != swap {
			t.Errorf("swap %v: note %q", swap, out.Note)
		}
	}
}
