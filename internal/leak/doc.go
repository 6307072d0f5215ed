// Package leak finds internals that a server let slip into text it returned: stack
// traces, absolute source paths with line numbers, secret-shaped tokens and the
// values of the secrets mcp-fuzz gave the server (SPEC §6, the "leak" flag). It also
// redacts those secrets from anything mcp-fuzz writes.
package leak
