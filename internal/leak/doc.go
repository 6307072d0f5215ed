// Package leak finds internals that a server let slip into text it returned: stack
// traces, absolute source paths with line numbers, secret-shaped tokens and the
// values of the secrets mcp-fuzz gave the server (the "leak" flag; see the Secrets
// section of SECURITY.md). It also redacts those secrets from anything mcp-fuzz
// writes, and every secret-shaped string with them (see [RedactShapes]).
package leak
