// Command paginated is a raw fixture server that splits tools/list over
// pages linked by nextCursor. With the default -mode normal, 7 tools arrive
// on 3 pages (3, 3, 1). The other modes break pagination in one way each:
//
//	-mode loop        page 2's nextCursor points back to page 1
//	-mode empty-page  after page 1, every page is empty but has a fresh
//	                  nextCursor, forever
//	-mode duplicates  page 3 repeats a tool of page 1 (alpha)
//
// An unknown cursor is answered with -32602.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

const cursorPrefix = "cursor-page-"

var names = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}

// page returns the tools of page n (from 1) and its nextCursor ("" for none),
// or ok false when there is no such page.
func page(mode string, n int) (tools []any, next string, ok bool) {
	tool := func(name string) any {
		return rawserver.Tool(name, "Answer with the tool's own name ("+name+").", rawserver.OneString())
	}
	cursor := func(n int) string { return cursorPrefix + strconv.Itoa(n) }
	switch {
	case n < 1:
		return nil, "", false
	case n == 1:
		return []any{tool("alpha"), tool("bravo"), tool("charlie")}, cursor(2), true
	case mode == "empty-page":
		return []any{}, cursor(n + 1), true
	case n == 2 && mode == "loop":
		return []any{tool("delta"), tool("echo"), tool("foxtrot")}, cursor(1), true
	case n == 2:
		return []any{tool("delta"), tool("echo"), tool("foxtrot")}, cursor(3), true
	case n == 3 && mode == "duplicates":
		return []any{tool("golf"), tool("alpha")}, "", true
	case n == 3:
		return []any{tool("golf")}, "", true
	}
	return nil, "", false
}

func list(mode string) rawserver.Handler {
	return func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params, &p)
		n := 1
		if p.Cursor != nil {
			rest, found := strings.CutPrefix(*p.Cursor, cursorPrefix)
			var err error
			if n, err = strconv.Atoi(rest); !found || err != nil {
				n = 0
			}
		}
		tools, next, ok := page(mode, n)
		if !ok {
			return nil, &rawserver.Error{Code: -32602, Message: "invalid cursor"}
		}
		res := map[string]any{"tools": tools}
		if next != "" {
			res["nextCursor"] = next
		}
		return res, nil
	}
}

func call(_ *rawserver.Server, req *rawserver.Request) (any, error) {
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if p.Name == name {
			return rawserver.Text(name), nil
		}
	}
	return nil, rawserver.UnknownTool(p.Name)
}

func main() {
	mode := flag.String("mode", "normal", "pagination: normal, loop, empty-page or duplicates")
	flag.Parse()
	switch *mode {
	case "normal", "loop", "empty-page", "duplicates":
	default:
		fmt.Fprintf(os.Stderr, "paginated: unknown -mode %q\n", *mode)
		os.Exit(2)
	}
	rawserver.Main(&rawserver.Server{
		Name:         "paginated",
		Version:      "1.0.0",
		Instructions: "Fixture: tools/list is paginated (mode " + *mode + ").",
		Methods: map[string]rawserver.Handler{
			"tools/list": list(*mode),
			"tools/call": call,
		},
	})
}
