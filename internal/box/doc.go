// Package box runs an untrusted MCP server in a box: on Linux, a small
// launcher (this program, started again) applies the strongest isolation the
// machine allows before it starts the server, so that the server cannot read
// mcp-fuzz's memory, environment or command line, cannot signal it, and
// cannot outlive it. What was applied, and what was not and why, is
// described in [Plan.Lines] for the report; a mechanism the machine lacks is
// left out and said, never a failure.
//
// The mechanisms, each where available (docs/SANDBOX.md says what each
// promises and where it is missing):
//   - a separate unprivileged uid when mcp-fuzz runs as root, or uid 0
//     without any capability when no other uid can read what the server
//     needs;
//   - a Landlock domain: no ptrace (so no /proc/PID/environ or mem) of any
//     process outside the box, and, from Landlock ABI 6, no signal to one;
//   - a PID namespace whose init is the launcher: when the launcher dies
//     (it has a death signal tied to mcp-fuzz) the kernel kills every
//     process of the server, daemons included;
//   - no_new_privs, and mcp-fuzz itself made non-dumpable.
//
// A program that uses the box must let the launcher run: [Plan] starts the
// program's own executable with a variable that this package's init
// function recognises, so the launcher runs before main.
package box
