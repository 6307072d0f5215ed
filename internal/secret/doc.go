// Package secret decides which values given to mcp-fuzz are secrets: the
// bearer token, header values, credentials in the target URL, and the
// environment values whose name or shape says they are credentials, plus any
// the user names ([Collect]); and which values of mcp-fuzz's own environment
// are ([Own]: its GITHUB_TOKEN and the like, never given to the server). The
// engine redacts exactly these from everything the server sends, flags a
// leak only for them, and the Action masks exactly them.
package secret
