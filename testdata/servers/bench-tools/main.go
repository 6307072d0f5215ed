// Command bench-tools is a raw fixture server for the benchmarks under
// bench/: it lists -tools N trivial read-only tools (tool_00001, ...), each
// with the [rawserver.OneString] schema, and answers every tools/call at
// once, whatever its arguments, in the way -answer names:
//
//	-answer ok        a text result
//	-answer iserror   a result with isError: true
//	-answer internal  JSON-RPC error -32603
//
// With -spawn-log FILE it appends one line to FILE when it starts, so a
// benchmark can count how many times it was spawned. The tools/list answer is
// encoded once, so the server's own cost stays negligible.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

func main() {
	n := flag.Int("tools", 10, "number of tools to list")
	answer := flag.String("answer", "ok", "how every tools/call is answered: ok, iserror or internal")
	spawnLog := flag.String("spawn-log", "", "append a line to this file on start")
	flag.Parse()

	if *spawnLog != "" {
		if err := appendLine(*spawnLog, fmt.Sprintf("pid %d\n", os.Getpid())); err != nil {
			fmt.Fprintf(os.Stderr, "bench-tools: %v\n", err)
			os.Exit(1)
		}
	}
	call, err := caller(*answer)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-tools: %v\n", err)
		os.Exit(2)
	}
	list, err := toolList(*n)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-tools: %v\n", err)
		os.Exit(1)
	}
	rawserver.Main(&rawserver.Server{
		Name:    "bench-tools",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				if err := s.RespondRaw(req.ID, list); err != nil {
					return nil, err
				}
				return nil, rawserver.ErrAnswered
			},
			"tools/call": call,
		},
	})
}

// caller returns the tools/call handler for an -answer mode.
func caller(answer string) (rawserver.Handler, error) {
	var result any
	switch answer {
	case "ok":
		result = rawserver.Text("ok")
	case "iserror":
		r := rawserver.ErrorText(`"q" must be a non-empty string`)
		result = r
	case "internal":
		return func(*rawserver.Server, *rawserver.Request) (any, error) {
			return nil, &rawserver.Error{Code: -32603, Message: "internal error"}
		}, nil
	default:
		return nil, fmt.Errorf("unknown -answer %q (want ok, iserror or internal)", answer)
	}
	return func(*rawserver.Server, *rawserver.Request) (any, error) { return result, nil }, nil
}

// toolList returns the encoded tools/list result of n tools.
func toolList(n int) ([]byte, error) {
	tools := make([]any, n)
	for i := range tools {
		tools[i] = rawserver.Tool(fmt.Sprintf("tool_%05d", i+1), "Answer the text q back.", rawserver.OneString())
	}
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		return nil, fmt.Errorf("encoding the tool list: %w", err)
	}
	return data, nil
}

func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("opening spawn log: %w", err)
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("writing spawn log: %w", err)
	}
	return f.Close()
}
