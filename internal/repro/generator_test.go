package repro

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The generator of an oversize reproducer prints, as printed, the exact
// tools/call line of the case: arguments that match the report's digest.
func TestGeneratorPrintsTheExactCall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	for name, args := range map[string]string{
		"string":  `{"q":"` + strings.Repeat("A", 65536) + `","quote":"it's \"x\" \\ ` + "\u2028é<>&" + `"}`,
		"array":   `{"ids":[` + strings.Repeat(`"x",`, 9999) + `"x"]}`,
		"unicode": `{"q":"` + strings.Repeat("日本", 30000) + `"}`,
	} {
		d := report.DigestArguments(json.RawMessage(args))
		if d.Pattern == nil {
			t.Fatalf("%s: no pattern", name)
		}
		for _, meta := range []json.RawMessage{nil, Envelope(modernVersion)} {
			checkGenerator(t, name, d, generatorCommand("weird 'tool' \"name\"", d.Pattern, meta), meta)
		}
	}
}

// checkGenerator runs gen and checks it prints the call of d, with the
// envelope meta in params._meta when meta is not nil.
func checkGenerator(t *testing.T, name string, d *report.ArgumentsDigest, gen string, meta json.RawMessage) {
	t.Helper()
	out, err := exec.Command("sh", "-c", gen).Output()
	if err != nil {
		t.Fatalf("%s: %s: %v", name, gen[:min(len(gen), 200)], err)
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Errorf("%s: not one line", name)
	}
	var call struct {
		Params struct {
			Meta      json.RawMessage `json:"_meta"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(out, &call); err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	if call.Params.Name != "weird 'tool' \"name\"" || !d.Matches(call.Params.Arguments) {
		t.Errorf("%s: the generated call differs from the one sent (%d bytes, want %d)", name, len(call.Params.Arguments), d.Bytes)
	}
	if !bytes.Equal(call.Params.Meta, meta) {
		t.Errorf("%s: _meta %s, want %s", name, call.Params.Meta, meta)
	}
	if len(gen) > 1024+len(meta) {
		t.Errorf("%s: a generator of %d bytes", name, len(gen))
	}
}
