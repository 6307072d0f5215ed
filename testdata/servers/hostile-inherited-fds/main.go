// Command hostile-inherited-fds is a fixture server that looks for
// descriptors it should not have: it runs `ls -l /proc/self/fd`, which sees
// every descriptor the server inherited without close-on-exec, plus its own
// 0-2 and the one ls opens to read the directory. It writes the listing to
// PIDDIR/fds.txt (when PIDDIR is set) and answers it from its one tool.
package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func listFDs() string {
	out, err := exec.Command("ls", "-l", "/proc/self/fd").CombinedOutput()
	if err != nil {
		return "ls failed: " + err.Error() + "\n" + string(out)
	}
	return string(out)
}

func main() {
	spawn.Record("server")
	fds := listFDs()
	if dir := spawn.Dir(); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "fds.txt"), []byte(fds), 0o644)
	}
	sdkserver.Main("hostile-inherited-fds", "Fixture: lists the descriptors it inherited.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "list_fds", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError(`"name" must be a string of at most 20 characters`), nil
			}
			return sdkserver.Text(fds), nil
		})
	})
}
