// Package casegen turns one MCP tool's raw inputSchema into deterministic test
// cases: one valid call generated from the schema (or taken from a user example)
// and many deliberately broken calls derived from it, each judged forbidden or
// allowed by a real JSON Schema validator. It also reports malformed schema
// metadata as [Problem]s instead of failing, as SPEC §4 and §5 require.
package casegen
