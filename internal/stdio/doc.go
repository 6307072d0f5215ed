// Package stdio runs an MCP server as a child process and exposes its stdin and
// stdout as an [mcp.Connection].
//
// Unlike the SDK's CommandTransport it reports, rather than chokes on, anything the
// server prints on stdout that is not a JSON-RPC message (see [Violation]), keeps only
// the tail of the server's stderr, gives the server a minimal environment
// ([MinimalEnv]) and no descriptors but stdin, stdout and stderr, and ends every
// process the server started by the time [Process.Stop] returns.
//
// # Containment
//
// A server runs in a process group of its own. [Process.Stop] (or the server's
// exit) sends SIGTERM to all its processes, waits Config.KillGrace, then stops
// (SIGSTOP) and kills (SIGKILL) them, sweep after sweep, until a sweep finds none,
// within a deadline; reading its pipes after that is bounded too. On Linux the
// processes are found in /proc, by the process group, by a random
// MCP_FUZZ_SERVER_ID variable added to the server's environment, and by
// descent, so a daemon that called setsid is found too.
//
// Process-wide effects: every [Start] marks all descriptors above stderr of the
// calling process close-on-exec, so descriptors it inherited from its own parent
// reach no child it execs afterwards. On Linux the first Start also makes the
// calling process a child subreaper (PR_SET_CHILD_SUBREAPER) for the rest of its
// life: every orphaned descendant, of a server or of a child started by other
// code, is reparented to it instead of to init. The package reaps the zombies of
// servers' processes, and of orphans in a session of their own; a program that
// starts other children whose own children orphan themselves must reap those. When
// no other server is running, a stopping server also kills every orphan
// reparented to the program that is in a session of its own, so a program must not
// start children with Setsid by other means while it runs servers. [OwnChildren]
// widens that to every child.
//
// Limits: elsewhere than on Linux only the process group is stopped, so a
// descendant that calls setsid survives. On Linux, unless [OwnChildren] was
// called, a descendant that moves to a new process group within the program's
// session (setpgid, not setsid), clears its environment, and loses its parent
// before a sweep sees it, is not found. A process the program may not signal (a
// setuid one) survives, and Stop reports it. If the program is killed without
// Stop, only the server's first process dies with it.
package stdio
