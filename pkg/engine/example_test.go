package engine_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Audit an MCP server from Go: here one served over Streamable HTTP on a
// loopback port, with one tool that validates its input (a stdio server is
// Config.Command instead of Config.URL). The report is the same data the
// command line writes with -o report.json.
func ExampleRun() {
	type addArgs struct {
		A int `json:"a" jsonschema:"the first addend"`
		B int `json:"b" jsonschema:"the second addend"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calculator", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "add",
		Description: "Add two integers.",
		// Only tools that say they change nothing are called by default.
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()

	rep, err := engine.Run(context.Background(), engine.Config{URL: ts.URL + "/", Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: score %d, grade %s\n", rep.Server.Name, *rep.Score, *rep.Grade)
	for _, t := range rep.Tools {
		bad := 0
		for _, c := range t.Cases {
			if c.Verdict == report.Handled || c.Verdict == report.Rejected {
				bad++
			}
		}
		fmt.Printf("%s: %d cases, %d bad inputs refused cleanly\n", t.Name, len(t.Cases), bad)
	}
	fmt.Println("findings:", len(rep.Findings))
	// Output:
	// calculator: score 100, grade A
	// add: 14 cases, 13 bad inputs refused cleanly
	// findings: 0
}
