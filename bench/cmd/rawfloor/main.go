// Command rawfloor is the floor a fuzzer's per-call cost is measured against:
// the cheapest correct client of a stdio MCP server. It spawns the server,
// sends initialize and notifications/initialized, lists the tools once, then
// makes -n sequential tools/call requests of one tool, reading each answer
// before sending the next, and prints one JSON line:
//
//	{"calls":N,"errors":E,"wall_s":...,"calls_s":...,"per_call_us":...}
//
// wall_s covers everything from spawn to the server's exit; calls_s only the
// calls. An answer with a JSON-RPC error counts in errors (it is still an
// answer). Requests from the server are answered with -32601; notifications
// are skipped.
//
// With -same-cases it makes the calls a default mcp-fuzz run makes instead:
// every listed tool (only those annotated readOnlyHint: true unless
// -include-destructive), each with the cases mcp-fuzz generates from its
// input schema (seed 1, 40 per tool), generated before the clock starts.
// That is the floor for "the same calls", payloads included.
//
// Usage:
//
//	rawfloor -n 1000 -tool tool_00001 -args '{"q":"x"}' -- COMMAND [ARGS...]
//	rawfloor -same-cases [-include-destructive] -- COMMAND [ARGS...]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
)

func main() {
	n := flag.Int("n", 1000, "number of tools/call requests")
	tool := flag.String("tool", "", "name of the tool to call (required)")
	args := flag.String("args", `{"q":"x"}`, "arguments of every call, a JSON object")
	list := flag.Bool("list", true, "list the tools once before the calls, as any client must")
	flag.BoolVar(&sameCases, "same-cases", false, "make the calls of a default mcp-fuzz run (every case of every selected tool)")
	flag.BoolVar(&includeDestructive, "include-destructive", false, "with -same-cases: call tools not annotated read-only too")
	flag.Parse()
	if sameCases {
		*list, *tool = true, "-"
	}
	if *tool == "" || flag.NArg() == 0 || !json.Valid([]byte(*args)) {
		fmt.Fprintln(os.Stderr, "usage: rawfloor -n N -tool NAME [-args JSON] -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	res, err := run(flag.Args(), *n, *tool, json.RawMessage(*args), *list)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rawfloor: %v\n", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}

// result is what rawfloor prints.
type result struct {
	Calls     int     `json:"calls"`
	Errors    int     `json:"errors"`
	WallS     float64 `json:"wall_s"`
	CallsS    float64 `json:"calls_s"`
	PerCallUs float64 `json:"per_call_us"`
}

// frame is the part of an incoming message rawfloor looks at.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  json.RawMessage `json:"error"`
	Result json.RawMessage `json:"result"`
}

// Set by flags: see the package comment.
var sameCases, includeDestructive bool

type client struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func run(argv []string, n int, tool string, args json.RawMessage, list bool) (result, error) {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return result{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, fmt.Errorf("starting server: %w", err)
	}
	c := &client{w: stdin, r: bufio.NewReaderSize(stdout, 64<<10)}
	res, err := c.session(n, tool, args, list)
	stdin.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("server exit: %w", werr)
	}
	res.WallS = time.Since(start).Seconds()
	return res, err
}

func (c *client) session(n int, tool string, args json.RawMessage, list bool) (result, error) {
	var res result
	if _, err := c.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "rawfloor", "version": "1"},
	}); err != nil {
		return res, fmt.Errorf("initialize: %w", err)
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return res, err
	}
	calls := []json.RawMessage{}
	if list {
		f, err := c.call("tools/list", map[string]any{})
		if err != nil {
			return res, fmt.Errorf("tools/list: %w", err)
		}
		if sameCases {
			if calls, err = generatedCalls(f.Result); err != nil {
				return res, err
			}
			n = len(calls)
		}
	}
	if !sameCases {
		p, err := json.Marshal(map[string]any{"name": tool, "arguments": args})
		if err != nil {
			return res, err
		}
		for range n {
			calls = append(calls, p)
		}
	}
	start := time.Now()
	for _, params := range calls {
		f, err := c.call("tools/call", params)
		if err != nil {
			return res, fmt.Errorf("tools/call %d: %w", res.Calls+1, err)
		}
		res.Calls++
		if len(f.Error) > 0 && !bytes.Equal(f.Error, []byte("null")) {
			res.Errors++
		}
	}
	res.CallsS = time.Since(start).Seconds()
	if n > 0 {
		res.PerCallUs = res.CallsS / float64(n) * 1e6
	}
	return res, nil
}

// call sends one request and reads until its answer arrives.
func (c *client) call(method string, params any) (frame, error) {
	c.id++
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return frame{}, err
	}
	want := []byte(fmt.Sprint(c.id))
	for {
		line, err := c.r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var f frame
			if jerr := json.Unmarshal(line, &f); jerr != nil {
				return frame{}, fmt.Errorf("decoding %.200q: %w", line, jerr)
			}
			switch {
			case f.Method != "" && len(f.ID) > 0:
				// A request from the server: refuse it politely.
				if err := c.send(map[string]any{"jsonrpc": "2.0", "id": f.ID,
					"error": map[string]any{"code": -32601, "message": "method not found"}}); err != nil {
					return frame{}, err
				}
			case f.Method != "":
				// A notification: skip it.
			case bytes.Equal(f.ID, want):
				return f, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return frame{}, fmt.Errorf("reading answer: %w", err)
		}
	}
}

func (c *client) send(v any) error {
	var data []byte
	var err error
	if m, ok := v.(map[string]any); ok {
		if p, ok := m["params"].(json.RawMessage); ok {
			// Written as is, like any lean client would.
			method, _ := json.Marshal(m["method"])
			data = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%s,"params":%s}`, m["id"], method, p)
		}
	}
	if data == nil {
		if data, err = json.Marshal(v); err != nil {
			return err
		}
	}
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("writing request: %w", err)
	}
	return nil
}

// generatedCalls returns the tools/call params of every case mcp-fuzz
// generates by default for the tools of a tools/list result.
func generatedCalls(listResult json.RawMessage) ([]json.RawMessage, error) {
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations struct {
				ReadOnly bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(listResult, &list); err != nil {
		return nil, fmt.Errorf("tools/list result: %w", err)
	}
	var out []json.RawMessage
	for _, t := range list.Tools {
		if !t.Annotations.ReadOnly && !includeDestructive {
			continue
		}
		schema, _ := casegen.Compile(t.InputSchema)
		plan := casegen.Generate(t.Name, schema, casegen.Options{Seed: 1, Budget: 40})
		name, _ := json.Marshal(t.Name)
		for _, c := range plan.Cases {
			args := c.Arguments
			if len(args) == 0 {
				args = json.RawMessage(`{}`)
			}
			out = append(out, json.RawMessage(fmt.Sprintf(`{"name":%s,"arguments":%s}`, name, args)))
		}
	}
	return out, nil
}
