package hostile

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestMain builds the fixtures (and, see [binaries], mcp-fuzz itself) into a
// directory that is removed when the tests end.
func TestMain(m *testing.M) { fixture.Main(m) }
