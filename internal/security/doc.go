// Package security plans the security cases of a tool and confirms what
// they prove (docs/BEHAVIOUR.md#security-cases).
//
// A security case is a string payload placed in one property of a tool's
// valid call: a path that climbs out of the server's directory, a shell
// command, an expression, an SQL fragment, a URL of a listener mcp-fuzz
// opens on the loopback interface. Each payload carries the evidence that
// would prove it worked, built so that it cannot turn up by chance: a
// canary file's random token, a string only an evaluator makes (a random
// tag followed by a sum the payload spells as an expression), a file the
// injected command creates in the scratch area, a request to the listener
// with the case's token, or a pair of SQL payloads whose answers differ the
// way a query's would. A payload refused, or answered without its evidence,
// proves nothing and is no finding.
//
// Payloads are harmless by construction: they read canary files, print,
// create a file in the scratch area, and reach only the loopback listener.
package security
