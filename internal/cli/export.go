package cli

import (
	"errors"
	"flag"
	"io"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/score"
)

// ParseOptions validates the flags of a fuzzing run (args without the program
// name; the server command after "--") exactly as the command line does, and
// returns the engine configuration, the gates and the -o files. It is the one
// config layer shared with the GitHub Action, which turns its INPUT_*
// variables into these flags. lookup reads the environment (for
// MCP_FUZZ_BEARER).
func ParseOptions(args []string, lookup func(string) (string, bool)) (engine.Config, score.Gates, []string, error) {
	o, err := parseArgs(args, lookup, io.Discard)
	if err == nil && o.help {
		err = flag.ErrHelp
	}
	if errors.Is(err, flag.ErrHelp) {
		err = errors.New("help is not a fuzzing run")
	}
	return o.cfg, o.gates, o.outputs, err
}
