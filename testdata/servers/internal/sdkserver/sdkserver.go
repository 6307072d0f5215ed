package sdkserver

import (
	"context"
	"fmt"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main serves a server called name with the given tools on stdin and stdout
// until stdin closes, and exits non-zero if serving fails.
func Main(name, instructions string, tools ...func(*mcp.Server)) {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, &mcp.ServerOptions{Instructions: instructions})
	for _, add := range tools {
		add(s)
	}
	if err := demo.Run(context.Background(), s, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
