// Package options is the one table of mcp-fuzz's settings: for each, what
// it takes, its default and bounds, its name in each front end (the
// command line's flag, the GitHub Action's input, the config file's key,
// mcp-fuzz serve's tool parameter) and how it applies to an
// engine.Config.
//
// The front ends read their settings through the table: the command line
// registers its flags and writes their --help from it, the Action reads
// its inputs by it, the config file knows its keys from it, and package
// audit merges and checks the values by it, naming a setting as the user
// spelled it. What cannot be generated from the table (action.yml, the
// README's flag table, the serve tools' input types) is checked against it
// by tests. Adding a setting is adding a row (and its use in the engine).
package options
