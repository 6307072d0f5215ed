// Command hostile-garbage-init is a raw fixture server that answers
// initialize with a result that is not an InitializeResult, chosen by
// -result:
//   - number (default): {"protocolVersion": 5}
//   - string: "ready"
//   - array: [1, 2, 3]
//   - null: null
//   - fields: {"protocolVersion": "2025-06-18", "capabilities": "all", "serverInfo": 7}
//   - secret: {"protocolVersion": 5, "serverInfo": {"name": API_TOKEN's value}},
//     for a client that quotes the answer in its error message
//   - secret-escaped: the same, the value written as \uXXXX escapes
//
// It stays alive and answers tools/list and tools/call, so mcp-fuzz must
// say that the answer was malformed, not that the server went away.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

var results = map[string]string{
	"number": `{"protocolVersion": 5}`,
	"string": `"ready"`,
	"array":  `[1, 2, 3]`,
	"null":   `null`,
	"fields": `{"protocolVersion": "2025-06-18", "capabilities": "all", "serverInfo": 7}`,
	"secret": `{"protocolVersion": 5, "serverInfo": {"name": ` + strconv.Quote(os.Getenv("API_TOKEN")) + `}}`,
	// The same secret with every character written as a \u escape.
	"secret-escaped": `{"protocolVersion": 5, "serverInfo": {"name": "` + uEscape(os.Getenv("API_TOKEN")) + `"}}`,
}

// uEscape writes s as JSON \uXXXX escapes, one per UTF-16 unit.
func uEscape(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "\\u%04x", u)
	}
	return b.String()
}

func main() {
	which := flag.String("result", "number", "the initialize result: number, string, array, null, fields, secret or secret-escaped")
	flag.Parse()
	result, ok := results[*which]
	if !ok {
		fmt.Fprintf(os.Stderr, "hostile-garbage-init: unknown -result %q\n", *which)
		os.Exit(2)
	}
	spawn.Record("server")
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-garbage-init",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
			"initialize": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				if err := s.RespondRaw(req.ID, []byte(result)); err != nil {
					return nil, err
				}
				return nil, rawserver.ErrAnswered
			},
		}),
	})
}
