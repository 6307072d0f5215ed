package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A SARIF log has "version": "2.1.0", so it once passed for an empty report:
// `mcp-fuzz comment x.sarif` went to GitHub and failed on an empty section
// key, and `--baseline x.sarif` silently took an empty baseline.
func TestReadFileRefusesSARIF(t *testing.T) {
	dir := t.TempDir()
	sarif := filepath.Join(dir, "mcp-fuzz.sarif")
	if err := os.WriteFile(sarif, []byte(`{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"mcp-fuzz"}},"results":[]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(sarif)
	if err == nil || !strings.Contains(err.Error(), "is a SARIF file, not an mcp-fuzz JSON report") {
		t.Fatalf("ReadFile(SARIF) = %v, want an error saying it is SARIF", err)
	}

	rep := filepath.Join(dir, "r.json")
	if err := os.WriteFile(rep, []byte(`{"version":"1.0.0","tools":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(rep); err != nil {
		t.Fatalf("ReadFile(report) = %v", err)
	}
}

// A missing report says so in the reader's terms, not as the stat call's
// "stat run.json: no such file or directory"; it still wraps fs.ErrNotExist.
func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	_, err := ReadFile(path)
	if err == nil || err.Error() != path+": no such file" || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile(missing) = %v", err)
	}
}

// A merged report (an array of reports) is read whole by ReadFiles, and
// refused by ReadFile with a message that says what to do instead.
func TestReadFilesMerged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	merged := filepath.Join(dir, "merged.json")
	if err := os.WriteFile(merged, []byte(` [{"version":"1.0.0","server":{"name":"a"},"tools":[]},{"version":"1.0.0","server":{"name":"b"},"tools":[]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	reps, err := ReadFiles(merged)
	if err != nil || len(reps) != 2 || reps[0].Server.Name != "a" || reps[1].Server.Name != "b" {
		t.Fatalf("ReadFiles = %d reports, %v", len(reps), err)
	}
	var me *MergedError
	if _, err := ReadFile(merged); !errors.As(err, &me) || me.Reports != 2 || !strings.Contains(err.Error(), "mcp-fuzz merge") {
		t.Errorf("ReadFile(merged) = %v", err)
	}
	one := filepath.Join(dir, "one.json")
	if err := os.WriteFile(one, []byte(`{"version":"1.0.0","tools":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if reps, err := ReadFiles(one); err != nil || len(reps) != 1 {
		t.Errorf("ReadFiles(one report) = %d, %v", len(reps), err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"version":"1.0.0","tools":[]}, 7]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFiles(bad); err == nil || !strings.Contains(err.Error(), "report 2") {
		t.Errorf("ReadFiles(an array with a number) = %v", err)
	}
}
