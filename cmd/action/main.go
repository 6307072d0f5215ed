package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-fuzz/mcp-fuzz/internal/action"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := action.Run(ctx, action.Env{Getenv: os.Getenv, Stdout: os.Stdout, Stderr: os.Stderr, HTTPClient: http.DefaultClient, Version: version})
	stop()
	os.Exit(code)
}
