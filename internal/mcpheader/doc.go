// Package mcpheader reads the x-mcp-header annotations of a tool's input
// schema and turns the arguments of a call into the Mcp-Param-{Name}
// headers that the Streamable HTTP transport of the 2026-07-28 revision
// asks a client to send with tools/call. It also says what makes an
// annotation invalid, which makes the whole tool definition invalid.
package mcpheader
