// Command hostile-hang-daemon is a fixture server that, when PIDDIR is set,
// starts a setsid daemon holding its stdout and stderr, and whose one tool
// never answers (it ignores cancellation). It is the server under test when
// mcp-fuzz is interrupted: SIGINT must still end the run within seconds,
// with a partial report and nothing left running.
package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func addStuck(s *mcp.Server) {
	sdkserver.AddNameTool(s, "stuck_lookup", func(context.Context, bool, json.RawMessage) (*mcp.CallToolResult, error) {
		time.Sleep(spawn.Lifetime) // not even cancellation ends it
		return sdkserver.Text("too late"), nil
	})
}

func main() {
	spawn.Record("server")
	spawn.Shell(`read p rest < /proc/self/stat; echo $p > "$PIDDIR/daemon.pid"; sleep 300`, "daemon.pid", true)
	sdkserver.Main("hostile-hang-daemon", "Fixture: every call hangs; a setsid daemon holds stdout and stderr.", addStuck)
}
