package main

import (
	"context"
	"net/http"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/internal/action"
	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/buildinfo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/hideproc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is not, the version comes from the build info (see package buildinfo).
var version = buildinfo.Unset

func main() {
	// First: re-executes this binary with its secrets out of /proc.
	hideproc.Args()
	// This program starts no children but servers: any orphan it adopts is
	// one of theirs, and is killed with them.
	stdio.OwnChildren()
	ctx, stop := audit.NotifyContext(context.Background())
	code := action.Run(ctx, action.Env{Getenv: os.Getenv, Environ: os.Environ, Stdout: os.Stdout, Stderr: os.Stderr, HTTPClient: http.DefaultClient, Version: buildinfo.Version(version)})
	stop()
	os.Exit(code)
}
