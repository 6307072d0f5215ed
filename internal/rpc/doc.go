// Package rpc is a minimal JSON-RPC 2.0 client over a go-sdk [mcp.Connection].
//
// Unlike the SDK's ClientSession it sends arguments verbatim and hands back raw
// results, so the fuzz engine can send malformed requests and judge malformed
// answers itself. Responses that match no pending request are reported instead
// of being dropped silently: as [KindUnknownResponseID] when no call had
// their id, as [KindLateAnswer] when an earlier call had it.
package rpc
