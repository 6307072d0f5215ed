// Package engine runs an mcp-fuzz audit: it connects to an MCP server over
// stdio or HTTP, discovers its tools, generates a valid call and many broken
// ones from each tool's input schema, sends them, and judges every answer.
// A valid call that errors on synthetic input is retried with values learned
// from the server itself (learn.go, reading values with internal/learn)
// before it is judged errored (internal/oracle). After the tools, the
// families of checks beyond single calls run in the order of one list of
// phases (phases.go), each with its preconditions.
//
// [Run] is the entry point; it keeps no global state, so several runs (or the
// tools of one run, on independent sessions) may proceed in parallel.
package engine
