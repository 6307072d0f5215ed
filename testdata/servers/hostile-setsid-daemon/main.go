// Command hostile-setsid-daemon is a fixture server that, when PIDDIR is set,
// first starts a daemon that leaves its process group and session
// (setsid sh -c '...; sleep 300') and keeps the server's stdout and stderr
// open, then serves one polite tool. mcp-fuzz must end the daemon, and must
// not wait for pipes the daemon holds.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func main() {
	spawn.Record("server")
	spawn.Shell(`read p rest < /proc/self/stat; echo $p > "$PIDDIR/daemon.pid"; sleep 300`, "daemon.pid", true)
	sdkserver.Main("hostile-setsid-daemon", "Fixture: leaves a setsid daemon holding its stdout and stderr.", sdkserver.AddPoliteTool)
}
