package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
)

// TestParseDiscoverHostile: whatever a server answers to server/discover,
// parsing never panics and keeps a bounded list of versions.
func TestParseDiscoverHostile(t *testing.T) {
	t.Parallel()
	many := make([]string, 10000)
	for i := range many {
		many[i] = strings.Repeat("9", 1000)
	}
	manyJSON, _ := json.Marshal(many)
	answers := []string{
		`null`, `1`, `"x"`, `[]`, `{}`, `{"supportedVersions":null}`, `{"supportedVersions":"2026-07-28"}`,
		`{"supportedVersions":[1,null,{}]}`, `{"supportedVersions":[],"capabilities":7}`,
		`{"supportedVersions":["2026-07-28"],"instructions":{}}`,
		`{"supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":7,"version":[]}}}`,
		`{"supportedVersions":["2026-07-28"],"_meta":"x"}`,
		`{"supportedVersions":` + string(manyJSON) + `}`,
	}
	for _, a := range answers {
		s := &Session{leak: leak.NewDetector(nil)}
		d, err := s.parseDiscover(json.RawMessage(a))
		if len(d.supported) > stateless.MaxSupportedVersions {
			t.Errorf("%.60s: kept %d versions", a, len(d.supported))
		}
		for _, v := range d.supported {
			if len(v) > stateless.MaxVersionLen {
				t.Errorf("%.60s: kept a version of %d bytes", a, len(v))
			}
		}
		_ = err
	}
	if got := stateless.SupportedFromData(json.RawMessage(`{"supported":` + string(manyJSON) + `}`)); len(got) != stateless.MaxSupportedVersions {
		t.Errorf("data.supported kept %d", len(got))
	}
	if pickModern([]string{"2025-11-25", "2026-07-28"}) != "2026-07-28" || pickModern([]string{"2025-11-25"}) != "" {
		t.Error("pickModern")
	}
}

func TestValidProtocolVersion(t *testing.T) {
	t.Parallel()
	for v, ok := range map[string]bool{"2026-07-28": true, "2026-7-28": false, "": false, "2026-07-28x": false, "latest": false} {
		if ValidProtocolVersion(v) != ok {
			t.Errorf("validProtocolVersion(%q) != %v", v, ok)
		}
	}
}

func TestProbeTimeoutLeavesHalfTheStartup(t *testing.T) {
	t.Parallel()
	if got := probeTimeout(context.Background()); got != discoverTimeout {
		t.Errorf("no deadline: %s, want %s", got, discoverTimeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if got := probeTimeout(ctx); got > 4*time.Second || got < 3*time.Second {
		t.Errorf("8 s left: %s, want about 4 s", got)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	if got := probeTimeout(ctx2); got != discoverTimeout {
		t.Errorf("a minute left: %s, want %s", got, discoverTimeout)
	}
}

// The metadata lint names the request the server described itself in: a
// modern-era server has no initialize result to blame.
