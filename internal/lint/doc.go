// Package lint checks MCP server and tool metadata without calling anything
// (docs/BEHAVIOUR.md#static-lint). [Check] runs a fixed table of rules over what initialize (or
// server/discover) and tools/list returned and turns each problem into a
// [report.Lint] with a stable code, a severity, a JSON pointer into the tool
// and a concrete fix;
// [SchemaProblems] does the same for the schema problems case generation
// found. Schemas are compiled once, by internal/casegen, for both.
//
// Rules never panic on malformed metadata and never fetch remote schemas.
package lint
