// Command leak-trace is a fixture server whose read_config answers bad input
// with isError text holding a Python traceback and an absolute path with a
// line number: verdict handled, flag leak.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("leak-trace", "Fixture: read_config leaks a traceback in its errors.", demo.AddReadConfig)
}
