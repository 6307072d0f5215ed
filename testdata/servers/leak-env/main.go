// Command leak-env is a fixture server whose whoami returns the value of the
// API_TOKEN environment variable in its text: the canary for
// `--env API_TOKEN=...` (flag leak on the valid call).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type whoamiArgs struct {
	Format string `json:"format"`
}

func addWhoami(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "whoami",
		Description: "Describe the account this server is signed in as.",
		Annotations: &mcp.ToolAnnotations{Title: "Who am I", ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"format": {"type": "string", "enum": ["short", "long"], "description": "How much to say."}
			},
			"required": ["format"],
			"additionalProperties": false
		}`),
	}, whoami)
}

// whoami leaks: it puts the secret token in its answer. Bad input is
// rejected by the SDK's typed validation with isError.
func whoami(_ context.Context, _ *mcp.CallToolRequest, in whoamiArgs) (*mcp.CallToolResult, any, error) {
	token := os.Getenv("API_TOKEN")
	if token == "" {
		token = "(none)"
	}
	out := "signed in as demo-user, token " + token
	if in.Format == "long" {
		out = fmt.Sprintf("%s, scopes read:all, pid %d", out, os.Getpid())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil, nil
}

func main() {
	sdkserver.Main("leak-env", "Fixture: whoami echoes the API_TOKEN environment variable.", addWhoami)
}
