// Package serve is `mcp-fuzz serve`: an MCP server over stdio that lets an
// agent use mcp-fuzz through four tools (list_tools, audit, replay,
// render_report). Each tool is a thin front end over the same layers the
// command line uses (package audit, [engine.Run], [engine.Replay], package
// render), so a result through the server equals the command line's.
package serve
