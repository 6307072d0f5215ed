package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds the tools that differ in how they answer bad input:
// lookup_user (isError, the good way), strict_search (a JSON-RPC error),
// echo_note (not at all) and read_config (isError with a traceback).

// AddLookupUser adds lookup_user, the one well-behaved demo tool: it checks
// its arguments and answers bad input with isError: true and a message that
// says how to fix the call (verdict handled).
func AddLookupUser(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "lookup_user",
		Description: "Look up a user account by numeric id and return its name (and, with verbose, its e-mail address).",
		Annotations: readOnly("Look up user"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"id": {"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Numeric user id, from 1 to 1000000."},
				"verbose": {"type": "boolean", "description": "Also return the e-mail address and the creation date."}
			},
			"required": ["id"],
			"additionalProperties": false
		}`),
	}, lookupUser)
}

func lookupUser(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("lookup_user", req.Params.Arguments)
	id := a.integer("id", true, 1, 1000000, `pass the numeric user id, e.g. {"id": 42}`)
	verbose := a.boolean("verbose", false, "omit it or pass true for more detail")
	a.closed()
	if err := a.err(); err != nil {
		return toolError("%v", err), nil
	}
	out := fmt.Sprintf("user %d: name=user-%d", id, id)
	if verbose {
		out += fmt.Sprintf(" email=user-%d@example.com created=2024-01-%02d", id, id%28+1)
	}
	return text(out), nil
}

// AddStrictSearch adds strict_search, which checks its arguments but answers
// bad input with JSON-RPC error -32602 (invalid params) instead of a tool
// result: safe, but the model never sees the message (verdict rejected).
func AddStrictSearch(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "strict_search",
		Description: "Search the document index for a query and return the names of the best matches.",
		Annotations: readOnly("Search documents"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Text to search for, 1 to 200 characters."},
				"limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Maximum number of results, 1 to 50 (default 3)."}
			},
			"required": ["query"],
			"additionalProperties": false
		}`),
	}, strictSearch)
}

func strictSearch(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("strict_search", req.Params.Arguments)
	query := a.str("query", true, 1, 200, `pass the text to search for, e.g. {"query": "invoices"}`)
	limit := a.integer("limit", false, 1, 50, "omit it or pass a small number")
	a.closed()
	if err := a.err(); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if limit == 0 {
		limit = 3
	}
	hits := make([]string, 0, limit)
	for i := range min(limit, 3) {
		hits = append(hits, fmt.Sprintf("doc-%d", i+1))
	}
	noun := "results"
	if len(hits) == 1 {
		noun = "result"
	}
	return text(fmt.Sprintf("%d %s for %q: %s", len(hits), noun, query, strings.Join(hits, ", "))), nil
}

// AddEchoNote adds echo_note, whose schema allows one string of at most 50
// characters and nothing else, but which accepts any arguments at all without
// looking (verdict accepted on every input the schema forbids).
func AddEchoNote(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "echo_note",
		Description: "Save a short note (at most 50 characters) and echo it back.",
		Annotations: readOnly("Echo note"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"text": {"type": "string", "maxLength": 50, "description": "The note, at most 50 characters."}
			},
			"required": ["text"],
			"additionalProperties": false
		}`),
	}, echoNote)
}

func echoNote(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// The flaw: no checking whatsoever.
	return text(fmt.Sprintf("note saved (%d bytes of arguments)", len(req.Params.Arguments))), nil
}

// AddReadConfig adds read_config, which answers bad input with isError, as it
// should, but puts a Python traceback with an absolute source path and line
// number in the message (verdict handled, flag leak).
func AddReadConfig(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "read_config",
		Description: "Read one section of the service configuration and return it as INI text.",
		Annotations: readOnly("Read configuration"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"section": {"type": "string", "enum": ["app", "database", "cache"], "description": "Which configuration section to read."}
			},
			"required": ["section"],
			"additionalProperties": false
		}`),
	}, readConfig)
}

func readConfig(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("read_config", req.Params.Arguments)
	section := a.enum("section", "app", "database", "cache")
	a.closed()
	if err := a.err(); err != nil {
		return toolError("Traceback (most recent call last):\n"+
			"  File \"/srv/app/server.py\", line 118, in handle_call\n"+
			"    return TOOLS[name](**arguments)\n"+
			"  File \"/srv/app/config.py\", line 42, in load\n"+
			"    section = SECTIONS[arguments[\"section\"]]\n"+
			"ValueError: %s", a.problem), nil
	}
	return text(fmt.Sprintf("[%s]\nenabled = true\nlog_level = info\n", section)), nil
}
