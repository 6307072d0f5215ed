// Package cli is the mcp-fuzz command line: it turns arguments into an
// [engine.Config], runs the audit and prints the result. cmd/mcp-fuzz only
// wires it to the process, so the whole CLI is testable in-process.
package cli
