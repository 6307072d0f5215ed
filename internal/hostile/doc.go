// Package hostile is the hostile-server suite: end-to-end tests that run the
// real mcp-fuzz binary (and the Action binary) against servers built to
// attack it — stdio fixtures under testdata/servers/hostile-*, HTTP servers
// started in the tests — and assert mcp-fuzz's promises whatever the server
// does: the run ends within a bound, no secret given to mcp-fuzz reaches any
// artefact, no process it started survives it, and the report gives a clear
// verdict. The package has no code of its own, only tests.
package hostile
