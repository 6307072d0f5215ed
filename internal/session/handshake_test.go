package session

import (
	"strings"
	"testing"
)

func TestParseInitialize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, err string
	}{
		{`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, ""},
		{`{"protocolVersion":"2025-06-18"}`, ""},
		{`{"protocolVersion":"2025-11-25","serverInfo":null,"instructions":null}`, ""},
		{`"hello"`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`[]`, "not a JSON object"},
		{`{}`, "protocolVersion is missing"},
		{`{"protocolVersion":5}`, "protocolVersion is not a non-empty string"},
		{`{"protocolVersion":""}`, "protocolVersion is not a non-empty string"},
		{`{"protocolVersion":"2025-11-25","capabilities":[]}`, "capabilities is not an object"},
		{`{"protocolVersion":"2025-11-25","serverInfo":"x"}`, "serverInfo is not an object"},
		{`{"protocolVersion":"2025-11-25","serverInfo":{"name":7}}`, "serverInfo.name is not a string"},
		{`{"protocolVersion":"2025-11-25","serverInfo":{"name":"a","version":{}}}`, "serverInfo.version is not a string"},
		{`{"protocolVersion":"2025-11-25","instructions":[1]}`, "instructions is not a string"},
	} {
		_, err := parseInitialize([]byte(tc.in))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
		}
	}
	r, _ := parseInitialize([]byte(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"n","version":"v"},"instructions":"i"}`))
	if r.ServerInfo.Name != "n" || r.ServerInfo.Version != "v" || r.Instructions != "i" {
		t.Errorf("fields not read: %+v", r)
	}
}

func TestVersionLint(t *testing.T) {
	t.Parallel()
	for _, v := range knownVersions {
		if l := VersionLint(EraLegacy, v); l != nil {
			t.Errorf("versionLint(EraLegacy, %q) = %v, want none: mcp-fuzz speaks it", v, l)
		}
	}
	l := VersionLint(EraLegacy, "2099-01-01")
	if len(l) != 1 || l[0].Code != "unknown_protocol_version" || l[0].Severity != "error" || !strings.Contains(l[0].Message, `"2099-01-01"`) {
		t.Errorf("versionLint(EraLegacy, 2099-01-01) = %+v", l)
	}
}
