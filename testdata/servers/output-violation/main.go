// Command output-violation is a fixture server whose get_stats declares an
// integer count in its outputSchema but returns {"count": "many"}: verdict
// output_violation.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("output-violation", "Fixture: get_stats breaks its own outputSchema.", demo.AddGetStats)
}
