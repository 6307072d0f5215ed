// Package action is the GitHub Action mode of mcp-fuzz: it reads the
// action's INPUT_* variables, validates them through the command line's own
// parser, runs the engine, and reports through the Actions runner (job
// summary, outputs, annotations, files in the workspace and a pull request
// comment). cmd/action only wires the process environment into [Run].
package action
