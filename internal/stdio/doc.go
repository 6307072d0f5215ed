// Package stdio runs an MCP server as a child process and exposes its stdin and
// stdout as an [mcp.Connection].
//
// Unlike the SDK's CommandTransport it reports, rather than chokes on, anything the
// server prints on stdout that is not a JSON-RPC message (see [Violation]), keeps only
// the tail of the server's stderr, gives the server a minimal environment
// ([MinimalEnv]), and terminates the server's whole process group so that nothing is
// left running when [Process.Stop] returns.
package stdio
