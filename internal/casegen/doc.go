// Package casegen turns one MCP tool's raw inputSchema into deterministic test
// cases: one valid call generated from the schema (or taken from a user example)
// and many deliberately broken calls derived from it, each judged forbidden or
// allowed by a real JSON Schema validator. It also reports malformed schema
// metadata as [Problem]s instead of failing, as docs/BEHAVIOUR.md#discovery-and-safety and #case-generation require.
//
// [Compile] is the one schema compiler of mcp-fuzz, with one loader that
// fetches nothing and one set of limits: internal/lint and the engine's output
// validation use what it compiled.
package casegen
