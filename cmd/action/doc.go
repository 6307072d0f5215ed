// Command mcp-fuzz-action is the entrypoint of the mcp-fuzz GitHub Action
// (installed as /usr/local/bin/mcp-fuzz-action in the image; entrypoint.sh
// runs it when GITHUB_ACTIONS is true). All logic lives in internal/action.
package main
