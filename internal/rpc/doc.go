// Package rpc is a minimal JSON-RPC 2.0 client over a go-sdk [mcp.Connection].
//
// Unlike the SDK's ClientSession it sends arguments verbatim and hands back raw
// results, so the fuzz engine can send malformed requests and judge malformed
// answers itself. Responses that match no pending request are recorded as
// protocol violations instead of being dropped silently.
package rpc
