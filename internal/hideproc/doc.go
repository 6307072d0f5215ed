// Package hideproc keeps mcp-fuzz's command line and environment out of
// /proc/PID/cmdline and /proc/PID/environ. The server under test runs beside
// mcp-fuzz: on Linux any process may read another's cmdline, and a process
// of the same user (or root) its environ. Both show the block the process
// was started with, whatever it changed since, so they would show a
// --bearer token, an Authorization header, the GITHUB_TOKEN of a workflow
// and the -o paths a server could plant symbolic links at.
//
// [Args], the first call of main, re-executes the same binary in the same
// process (same pid, same exit code, same signals) with the program name
// alone as its command line and an environment cut down to variables that
// carry no secret and that matter before main runs. The whole original
// command line and environment travel in a sealed memory file whose
// descriptor is named by [HandoffVar]; the re-executed process reads it,
// restores every variable with os.Setenv, and returns the original
// arguments. Where this cannot be done (not Linux, no /proc, no memfd), the
// program runs as it was started.
package hideproc
