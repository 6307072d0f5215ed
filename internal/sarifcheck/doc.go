// Package sarifcheck validates a SARIF log the way its consumers will: against
// the official SARIF 2.1.0 JSON Schema (rtm.5, embedded) and against the
// requirements and limits GitHub code scanning documents for uploads. Tests
// of every writer of SARIF use it; nothing in the binaries does.
package sarifcheck
