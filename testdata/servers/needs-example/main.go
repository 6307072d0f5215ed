// Command needs-example is a fixture server whose get_order only knows order
// "ord_1001": any synthetic order id gets "order not found" (verdict errored,
// a synthetic-input false positive) until the configuration file supplies a
// realistic example.
package main

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("needs-example", "Fixture: only order ord_1001 exists.", func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{
			Name:        "get_order",
			Description: "Fetch one order by its id.",
			Annotations: &mcp.ToolAnnotations{Title: "Get order", ReadOnlyHint: true},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string","description":"The order id, e.g. ord_1001."}},"required":["order_id"],"additionalProperties":false}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				OrderID string `json:"order_id"`
			}
			if json.Unmarshal(req.Params.Arguments, &args) != nil || args.OrderID == "" {
				return sdkserver.ToolError("get_order needs a string order_id"), nil
			}
			if args.OrderID != "ord_1001" {
				return sdkserver.ToolError("order " + args.OrderID + " not found"), nil
			}
			return sdkserver.Text("order ord_1001: 2 items, shipped"), nil
		})
	})
}
