package serve

// Usage is the help of `mcp-fuzz serve`.
const Usage = `Usage: mcp-fuzz serve

Runs mcp-fuzz as an MCP server over stdio, for agents. It speaks MCP
(JSON-RPC, newline-delimited) on stdin/stdout and writes nothing else to
stdout; errors go to stderr. Add it to an MCP client, e.g.:

  {"mcpServers": {"mcp-fuzz": {"command": "mcp-fuzz", "args": ["serve"]}}}

Tools (annotations in brackets):
  list_tools         start a target, list its tools, which ones audit would call
                     and why, and lint their metadata; calls no tool
                     [not read-only: starts the target; not destructive; open world]
  audit              fuzz a target's read-only tools and score it; tools/skip_tools
                     only narrow the read-only set
                     [not read-only; not destructive; open world]
  audit_destructive  audit that also calls tools not annotated read-only: only for
                     disposable test instances
                     [not read-only; DESTRUCTIVE; open world]
  replay             re-run one case of a saved .json report, old vs new verdict
                     [not read-only; possibly destructive: it re-sends what the
                     report recorded; open world]
  render_report      render a saved .json report as markdown, terminal, sarif, junit
                     [read-only; closed world]

Bounds: per-call timeout at most 60 s, a whole audit at most 900 s (default 300),
inline reports cut at max_report_chars (write output_path for the whole report).
Cancelling a request stops its audit and the target. No config file is read.

Secrets passed to a tool (headers, bearer, secret-looking env values) are
redacted from every result. See docs/SKILL.md for the agent workflow.

Examples:
  mcp-fuzz serve
  mcp-fuzz -- mcp-fuzz serve        # audit mcp-fuzz's own server
`
