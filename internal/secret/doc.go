// Package secret decides which values given to mcp-fuzz are secrets (SPEC §3):
// the bearer token, header values, credentials in the target URL, and the
// environment values whose name or shape says they are credentials, plus any
// the user names. The engine redacts exactly this set from everything the
// server sends, flags a leak only for it, and the Action masks exactly it.
package secret
