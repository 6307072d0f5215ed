// Package rawserver is a minimal newline-delimited JSON-RPC server for the
// fixtures that must misbehave in ways the go-sdk server cannot: malformed
// tools/list results, broken envelopes, stray responses. It answers
// initialize and ping, ignores notifications and responses, dispatches other
// methods to [Handler] funcs, and answers unknown methods with -32601.
// Requests are handled one at a time, and every frame is written with one
// Write.
package rawserver
