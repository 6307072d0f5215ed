package serve

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

func TestMain(m *testing.M) { fixture.Main(m) }
