// Package bigjson reads JSON-RPC messages too large to hold. A [Scanner] is fed
// a message piece by piece in constant memory and keeps only what tells the
// answer apart: its id, whether it is a result or an error, the error code and
// result.isError, and how many bytes it had.
package bigjson
