// Command mcp-fuzz fuzzes the tools of an MCP server and judges every answer.
package main

import (
	"context"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := cli.NotifyContext(context.Background())
	app := &cli.App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv, Version: version, Executable: os.Executable}
	code := app.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
