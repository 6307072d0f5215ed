#!/bin/bash
# bash, not sh: Debian's sh (dash) drops environment variables whose names are
# not shell identifiers, and the runner passes inputs as INPUT_FAIL-UNDER,
# INPUT_GITHUB-TOKEN... The script itself is POSIX sh.
# Entry point of the mcp-fuzz image: GitHub Actions runs it with no arguments
# (inputs come as INPUT_* variables), so it starts the action; anything else
# (docker run IMAGE --help, docker run IMAGE -- npx ...) is the CLI.
# MCP_FUZZ_BIN_DIR overrides where the binaries are (tests run this outside
# the image).
set -eu
bin="${MCP_FUZZ_BIN_DIR:-/usr/local/bin}"
if [ "${GITHUB_ACTIONS:-}" = "true" ] && [ "$#" -eq 0 ]; then
	exec "$bin/mcp-fuzz-action"
fi
exec "$bin/mcp-fuzz" "$@"
