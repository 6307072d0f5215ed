package stdio

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperEnv makes the test binary act as an MCP server instead of running tests,
// so that the tests can launch a real go-sdk server without building anything.
const helperEnv = "STDIO_TEST_HELPER"

// helpers are the roles the test binary can play, by the value of helperEnv.
var helpers = map[string]func(){"mcp": runHelperServer}

func TestMain(m *testing.M) {
	if run := helpers[os.Getenv(helperEnv)]; run != nil {
		run()
		return
	}
	os.Exit(m.Run())
}

type echoArgs struct {
	Text string `json:"text"`
}

// runHelperServer serves two tools over stdio after printing a line of garbage:
// "echo" (which also writes a panic-like line to stderr) and "exit" (which ends
// the process with code 3 in the middle of the call).
func runHelperServer() {
	fmt.Println("helper server starting") // not JSON-RPC: must be reported, not fatal
	s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "panic: not really, just testing")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "exit", Description: "Exits with code 3."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
}
