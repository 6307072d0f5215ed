// Command hostile-fork-at-exit is a fixture server that, when PIDDIR is set,
// starts a child that forks as it dies: on SIGTERM, or when the server is
// gone, the child starts three sleepers that ignore SIGTERM (one in a new
// session, one in a new process group, one in its own group) and exits. The
// server itself does the same as it exits, whether its input ended or it got
// SIGTERM. mcp-fuzz must leave none of them running.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func main() {
	spawn.Main()
	spawn.Record("server")
	spawn.Self("forker", spawn.SameGroup)
	atExit := spawn.OnExit(func() {
		spawn.Self("sleeper", spawn.NewSession)
		spawn.Self("sleeper", spawn.NewGroup)
	})
	defer atExit()
	sdkserver.Main("hostile-fork-at-exit", "Fixture: it and its child fork as they exit.", sdkserver.AddPoliteTool)
}
