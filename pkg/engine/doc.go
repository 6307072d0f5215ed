// Package engine runs an mcp-fuzz audit: it connects to an MCP server over
// stdio or HTTP, discovers its tools, generates a valid call and many broken
// ones from each tool's input schema, sends them, and judges every answer.
// [Run] returns the scored and graded report (package report); [Plan] lists
// what a run would call, and [Replay] sends one case again.
//
// Runs keep no state between them, so several may proceed in parallel. Two
// things are process-wide, and a program that embeds the engine should
// know them:
//
//   - A stdio server is started in a box (docs/SANDBOX.md): the program
//     starts its own executable again as the launcher, which an init
//     function of the engine's dependencies recognises, so the program's
//     main never runs in that process. Config.NoBox starts the server
//     directly instead.
//   - The first run puts a redacting writer in front of the standard
//     logger's output (see [GuardStandardLog]).
//
// Inside, after the tools, the families of checks beyond single calls run
// in the order of one list of phases (phases.go), each with its
// preconditions; docs/ARCHITECTURE.md describes the parts.
package engine
