// Package session is mcp-fuzz's side of the wire: a [Dialer] opens
// sessions to one target (a stdio server in its box, or an HTTP URL over
// Streamable HTTP or the legacy SSE transport) and negotiates the era
// (server/discover first, the initialize handshake as a current client
// falls back to it); a [Session] sends requests, redacts every answer,
// and records what went wrong on its wire (stdout garbage, late answers,
// violations outside any call). Discovery (the paginated lists), task
// calls and the x-mcp-header parameter table live here too.
//
// The engine (pkg/engine) decides what to send and judges the answers;
// this package only carries them. See docs/ARCHITECTURE.md.
package session
