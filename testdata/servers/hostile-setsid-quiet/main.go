// Command hostile-setsid-quiet is a fixture server that, when PIDDIR is set,
// first starts a daemon that leaves its process group and session and closes
// every inherited descriptor (exec >/dev/null 2>&1 </dev/null), so nothing
// but a process scan can find it; then it serves one polite tool. mcp-fuzz
// must end the daemon all the same.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func main() {
	spawn.Record("server")
	spawn.Shell(`exec >/dev/null 2>&1 </dev/null; read p rest < /proc/self/stat; echo $p > "$PIDDIR/daemon.pid"; sleep 300`, "daemon.pid", true)
	sdkserver.Main("hostile-setsid-quiet", "Fixture: leaves a setsid daemon with its descriptors closed.", sdkserver.AddPoliteTool)
}
