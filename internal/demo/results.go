package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds the tools whose valid call is the problem (list_items,
// get_stats) and the destructive one that the default run must skip.

// AddListItems adds list_items, whose valid call succeeds with empty content
// and no structured content (verdict empty_success). Bad input is answered
// with isError.
func AddListItems(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "list_items",
		Description: "List the items stored in a folder, newest first.",
		Annotations: readOnly("List items"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"folder": {"type": "string", "minLength": 1, "maxLength": 64, "description": "Folder to list, e.g. \"inbox\"."},
				"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Maximum number of items, 1 to 100."}
			},
			"required": ["folder"],
			"additionalProperties": false
		}`),
	}, listItems)
}

func listItems(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("list_items", req.Params.Arguments)
	a.str("folder", true, 1, 64, `e.g. {"folder": "inbox"}`)
	a.integer("limit", false, 1, 100, "omit it or pass a small number")
	a.closed()
	if err := a.err(); err != nil {
		return toolError("%v", err), nil
	}
	// The flaw: success with nothing in it (the SDK sends "content": []).
	return &mcp.CallToolResult{}, nil
}

// AddGetStats adds get_stats, which declares an outputSchema with a required
// integer count but returns structuredContent {"count": "many"} (verdict
// output_violation). It is a raw handler because the SDK's typed handlers
// validate their output. Bad input is answered with isError.
func AddGetStats(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "get_stats",
		Description: "Count the records of one kind (users, orders or errors) in the service.",
		Annotations: readOnly("Get statistics"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"metric": {"type": "string", "enum": ["users", "orders", "errors"], "description": "What to count."}
			},
			"required": ["metric"],
			"additionalProperties": false
		}`),
		OutputSchema: schema(`{
			"type": "object",
			"properties": {
				"count": {"type": "integer", "minimum": 0, "description": "Number of records."}
			},
			"required": ["count"]
		}`),
	}, getStats)
}

func getStats(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("get_stats", req.Params.Arguments)
	a.enum("metric", "users", "orders", "errors")
	a.closed()
	if err := a.err(); err != nil {
		return toolError("%v", err), nil
	}
	// The flaw: count is a string, not the declared integer.
	res := text(`{"count":"many"}`)
	res.StructuredContent = map[string]any{"count": "many"}
	return res, nil
}

// AddDeleteEverything adds delete_everything, annotated destructiveHint: true
// and readOnlyHint: false. It deletes nothing; it exists so that a default
// run lists it as skipped (not read-only).
func AddDeleteEverything(s *mcp.Server) {
	yes, no := true, false
	s.AddTool(&mcp.Tool{
		Name:        "delete_everything",
		Description: "Delete every record in the service (this demo only pretends to).",
		Annotations: &mcp.ToolAnnotations{Title: "Delete everything", DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no},
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"confirm": {"type": "boolean", "description": "Must be true to proceed."}
			},
			"required": ["confirm"],
			"additionalProperties": false
		}`),
	}, deleteEverything)
}

func deleteEverything(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("delete_everything", req.Params.Arguments)
	confirm := a.boolean("confirm", true, `pass {"confirm": true}`)
	a.closed()
	if err := a.err(); err != nil {
		return toolError("%v", err), nil
	}
	if !confirm {
		return text("nothing deleted: confirm was false"), nil
	}
	return text("nothing deleted (this demo tool never deletes anything)"), nil
}
