// Package gate is the runtime gate of docs/BEHAVIOUR.md#checks-beyond-single-calls: it wraps a live MCP client
// session inside an agent, times and sizes every tools/call, and flags an
// answer that is unusual for that same tool's own history — above an absolute
// threshold, or over 3× the tool's median once it has three earlier answers.
//
// The gate only observes: it returns the call's result and error unchanged and
// hands its verdict ([Observation]) to the caller, who decides whether to
// block. It is a package of its own rather than part of pkg/engine so that an
// agent imports the go-sdk client and a few hundred lines, not the audit
// engine, and so that the engine's API stays about audits.
package gate
