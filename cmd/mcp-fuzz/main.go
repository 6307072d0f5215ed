// Command mcp-fuzz fuzzes the tools of an MCP server and judges every answer.
package main

import (
	"context"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/buildinfo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/cli"
	"github.com/mcp-fuzz/mcp-fuzz/internal/hideproc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is not, the version comes from the build info (see package buildinfo).
var version = buildinfo.Unset

func main() {
	// First: re-executes this binary with its secrets out of /proc.
	args := hideproc.Args()
	// This program starts no children but servers: any orphan it adopts is
	// one of theirs, and is killed with them.
	stdio.OwnChildren()
	ctx, stop := audit.NotifyContext(context.Background())
	app := &cli.App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv, Environ: os.Environ, Version: buildinfo.Version(version), Executable: os.Executable}
	code := app.Run(ctx, args[1:])
	stop()
	os.Exit(code)
}
