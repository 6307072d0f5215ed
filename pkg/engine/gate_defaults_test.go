package engine

import (
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/gate"
)

// TestGateDefaultsAreTheAudits holds pkg/gate's defaults to the audit's
// thresholds and noise floors, which its documentation says they are: the
// gate keeps copies so that an agent need not import the engine, and a
// change to one side must not leave the other behind.
func TestGateDefaultsAreTheAudits(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		name      string
		gate, own time.Duration
	}{
		{"slow", gate.DefaultSlowAfter, DefaultSlowMs * time.Millisecond},
		{"relative slow floor", gate.DefaultMinSlow, relativeSlowFloorMs * time.Millisecond},
	} {
		if c.gate != c.own {
			t.Errorf("%s: gate %v, audit %v", c.name, c.gate, c.own)
		}
	}
	if gate.DefaultBloatChars != DefaultBloatChars {
		t.Errorf("bloat: gate %d, audit %d", gate.DefaultBloatChars, DefaultBloatChars)
	}
	if gate.DefaultMinBloatChars != relativeBloatFloorChars {
		t.Errorf("relative bloat floor: gate %d, audit %d", gate.DefaultMinBloatChars, relativeBloatFloorChars)
	}
}
