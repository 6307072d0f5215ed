// Command hostile-secret-echo is a raw fixture server that echoes the values
// of its API_TOKEN and DEBUG environment variables everywhere a server can
// put text: serverInfo.name and .version, instructions, a tool description,
// a property's description, default and enum, tool results, isError texts,
// JSON-RPC error messages and data, and stderr (also right before it exits,
// for the crash finding's stderr tail). Every secret must be redacted before
// it reaches a report; the boolean DEBUG=true is no secret and no leak.
//
// With -disguise, the token is written only in forms a plain search misses:
// split by U+200B and by U+034F, upper-cased, and with every byte
// percent-encoded.
//
// Tools: lookup (the echo in its schema; bad input gets -32602, isError,
// -32603, or an exit with status 3 for an oversize q) and plain (a clean
// schema, the echo in its answer: a leak on the valid call).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

var disguise = flag.Bool("disguise", false, "write the token only in disguised forms")

// echo is what the server repeats everywhere, set by main.
var echo string

// token returns the value of API_TOKEN, disguised when -disguise is set.
func token() string {
	v := os.Getenv("API_TOKEN")
	if !*disguise || len(v) < 8 {
		return v
	}
	var pct strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&pct, "%%%02x", v[i])
	}
	return strings.Join([]string{
		v[:5] + "\u200b" + v[5:],
		v[:3] + "\u034f" + v[3:6] + "\u034f" + v[6:],
		strings.ToUpper(v),
		pct.String(),
	}, " ")
}

// value is the raw value used where the schema needs one word: the token,
// else the DEBUG value.
func value() string {
	if v := os.Getenv("API_TOKEN"); v != "" {
		if *disguise && len(v) >= 8 {
			return v[:5] + "\u200b" + v[5:]
		}
		return v
	}
	if v := os.Getenv("DEBUG"); v != "" {
		return v
	}
	return "none"
}

func tools() []any {
	lookup := rawserver.Tool("lookup", "Look up a record. This server runs with "+echo+".", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"q": map[string]any{"type": "string", "maxLength": 100, "description": "What to look up; configured with " + echo + "."},
			"mode": map[string]any{
				"type":        "string",
				"enum":        []string{"fast", value()},
				"default":     value(),
				"description": "Lookup mode; the second is " + echo + ".",
			},
		},
		"required":             []string{"q"},
		"additionalProperties": false,
	})
	plain := rawserver.Tool("plain", "Answer any question in plain text.", rawserver.OneString())
	return []any{lookup, plain}
}

func call(srv *rawserver.Server, req *rawserver.Request) (any, error) {
	fmt.Fprintf(os.Stderr, "tools/call with %s\n", echo)
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(p.Arguments, &args) != nil || args == nil {
		return nil, &rawserver.Error{Code: -32602, Message: "arguments must be an object; server has " + echo}
	}
	q, present := args["q"]
	var s string
	isString := present && json.Unmarshal(q, &s) == nil && len(q) > 0 && q[0] == '"'
	switch p.Name {
	case "plain":
		if !isString {
			return rawserver.ErrorText("q must be a string (" + echo + ")"), nil
		}
		return rawserver.Text("plain answer, served with " + echo), nil
	case "lookup":
		switch {
		case !present:
			return nil, &rawserver.Error{Code: -32602, Message: "q is required; " + echo}
		case string(q) == "null":
			// An error with data, written by hand: Respond drops data.
			err := srv.Send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
				"code": -32603, "message": "internal error: " + echo, "data": map[string]any{"env": echo},
			}})
			if err != nil {
				return nil, err
			}
			return nil, rawserver.ErrAnswered
		case !isString:
			return rawserver.ErrorText("q must be a string, not " + string(q) + "; " + echo), nil
		case len(s) > 1000:
			fmt.Fprintf(os.Stderr, "fatal: q too long; environment %s\n", echo)
			os.Exit(3)
		}
		return rawserver.Text("found " + s + " (" + echo + ")"), nil
	}
	return nil, rawserver.UnknownTool(p.Name)
}

func main() {
	flag.Parse()
	echo = fmt.Sprintf("API_TOKEN=%s DEBUG=%s", token(), os.Getenv("DEBUG"))
	spawn.Record("server")
	fmt.Fprintf(os.Stderr, "starting with %s\n", echo)
	rawserver.Main(&rawserver.Server{
		Name:         "secret-echo " + echo,
		Version:      "1.0.0+" + value(),
		Instructions: "Fixture: echoes its environment: " + echo,
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": tools()}, nil
			},
			"tools/call": call,
		},
	})
}
