package cli

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// TestProgressEscapesReasons: a skip reason can quote the server's schema
// (a property name in an invalid tool definition), so no escape sequence
// of it reaches the terminal, as in the Action's log.
func TestProgressEscapesReasons(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b)
	p.event(engine.Event{Kind: engine.EventSkip, Tool: "t", Reason: "not called: inputSchema/properties/\x1b[2Jx: bad"})
	p.event(engine.Event{Kind: engine.EventCutoff, Tool: "t", Reason: "cut \x1b]0;title\x07"})
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("progress printed control characters: %q", b.String())
	}
}
