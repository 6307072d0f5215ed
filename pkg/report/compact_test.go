package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCompactArguments(t *testing.T) {
	big := func(s string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"q": s})
		return b
	}
	for _, tc := range []struct {
		name string
		args json.RawMessage
		kind string // "" when kept whole
	}{
		{"small object", json.RawMessage(`{"a":1}`), ""},
		{"empty", nil, ""},
		{"exactly the limit", big(strings.Repeat("a", MaxInlineArguments-len(`{"q":""}`))), ""},
		{"one byte over", big(strings.Repeat("a", MaxInlineArguments-len(`{"q":""}`)+1)), "object"},
		{"64 KiB string", big(strings.Repeat("x", 64<<10)), "object"},
		{"multibyte at the cut", big(strings.Repeat("é", 10000)), "object"},
		{"huge array", json.RawMessage("[" + strings.Repeat("1,", 10000) + "1]"), "array"},
		{"huge string", json.RawMessage(`"` + strings.Repeat("z", 5000) + `"`), "string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, d := CompactArguments(tc.args)
			if tc.kind == "" {
				if d != nil || string(args) != string(tc.args) {
					t.Fatalf("CompactArguments(%d bytes) = %d bytes, %+v; want them unchanged", len(tc.args), len(args), d)
				}
				return
			}
			if args != nil || d == nil {
				t.Fatalf("CompactArguments(%d bytes) = %d bytes, %v; want nil and a digest", len(tc.args), len(args), d)
			}
			sum := sha256.Sum256(tc.args)
			if d.Kind != tc.kind || d.Bytes != len(tc.args) || d.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("digest = %+v, want kind %s, %d bytes, sha256 %x", d, tc.kind, len(tc.args), sum)
			}
			if len(d.Head) > ArgumentsHeadBytes || !utf8.ValidString(d.Head) || !strings.HasPrefix(string(tc.args), d.Head) || len(d.Head) < ArgumentsHeadBytes-utf8.UTFMax {
				t.Errorf("head %q is not the start of the arguments cut at a character boundary", d.Head)
			}
			if !d.Matches(tc.args) || d.Matches(append(tc.args[:len(tc.args):len(tc.args)], ' ')) {
				t.Error("Matches does not tell the arguments from others")
			}
			// The stored case stays small: null arguments and a short digest.
			b, _ := json.Marshal(Case{Arguments: args, ArgumentsDigest: d})
			if len(b) > 512 {
				t.Errorf("a compacted case encodes as %d bytes: %s", len(b), b)
			}
		})
	}
}

func TestNormalizeBoundsServerText(t *testing.T) {
	huge := strings.Repeat("ü", 1<<20)
	r := &Report{
		Server: Server{Name: huge, Version: huge, ProtocolVersion: huge, Instructions: huge,
			Capabilities: json.RawMessage(`{"x":"` + strings.Repeat("a", MaxStoredCapabilities) + `"}`)},
		Tools: []Tool{{Name: "t", Description: huge}, {Name: "u", Description: "short"}},
	}
	r.Normalize()
	for what, s := range map[string]string{
		"name": r.Server.Name, "version": r.Server.Version, "protocol version": r.Server.ProtocolVersion,
		"instructions": r.Server.Instructions, "description": r.Tools[0].Description,
	} {
		if len(s) > MaxStoredText+64 || !utf8.ValidString(s) || !strings.Contains(s, "… (2,097,152 bytes in all)") {
			t.Errorf("%s: %d bytes, ending %q; want it cut with an ellipsis", what, len(s), s[max(0, len(s)-40):])
		}
	}
	if r.Tools[1].Description != "short" {
		t.Errorf("short description changed to %q", r.Tools[1].Description)
	}
	if r.Server.Capabilities != nil || len(r.Discovery.Notes) != 1 {
		t.Errorf("capabilities kept (%d bytes), notes %q", len(r.Server.Capabilities), r.Discovery.Notes)
	}
	if r.SchemaVersion != SchemaVersion {
		t.Errorf("schemaVersion = %d, want %d", r.SchemaVersion, SchemaVersion)
	}
}

// A report read from a file may carry any number of server violations of
// any size: Normalize bounds them like the rest of the server's text.
func TestNormalizeBoundsServerViolations(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	r := &Report{ServerViolationCount: 500}
	for range 500 {
		r.ServerViolations = append(r.ServerViolations, ServerViolation{When: huge, Excerpt: huge})
	}
	r.Normalize()
	if len(r.ServerViolations) != MaxServerViolations || r.ServerViolationCount != 500 {
		t.Fatalf("%d kept, %d counted", len(r.ServerViolations), r.ServerViolationCount)
	}
	for _, v := range r.ServerViolations {
		if len(v.When) > MaxStoredName+64 || len(v.Excerpt) > MaxStoredText+64 {
			t.Errorf("when %d bytes, excerpt %d bytes: not cut", len(v.When), len(v.Excerpt))
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 65612: "65,612", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
