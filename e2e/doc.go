// Package e2e holds the end-to-end tests of mcp-fuzz against real MCP
// reference servers installed from the npm registry at pinned versions
// (testdata/package.json and testdata/package-lock.json).
//
// The tests carry the build tag "e2e", so a plain `go test ./...` skips them.
// Run them with
//
//	go test -tags e2e ./e2e/
//
// TestMain runs setup.sh, which installs the servers with
// `npm ci --ignore-scripts` into testdata/node_modules (once; later runs reuse
// the install while the lock file is unchanged). Without node on PATH every
// test is skipped with a message. NOTES.md records what each server offers and
// how it answers valid and broken calls.
package e2e
