package cli

import (
	"context"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/serve"
)

// runServe runs mcp-fuzz as an MCP server on stdin/stdout (package serve):
// mcp-fuzz serve. Nothing but JSON-RPC is written to stdout.
func (a *App) runServe(ctx context.Context, args []string) int {
	for _, arg := range args {
		switch arg {
		case "-h", "-help", "--help":
			fmt.Fprint(a.Stdout, serve.Usage)
			return ExitOK
		}
	}
	if len(args) > 0 {
		return a.usageError(fmt.Errorf("serve takes no arguments, got %q", args[0]))
	}
	if err := serve.Run(ctx, serve.Options{Version: a.Version, LookupEnv: a.LookupEnv, Environ: a.Environ}, a.Stdin, a.Stdout); err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz serve: %v\n", err)
		return 1
	}
	return ExitOK
}
