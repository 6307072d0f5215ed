// Command hostile-lifecycle is a raw fixture server of one resource, note
// (create_note, get_note, delete_note), whose ids and answers attack the
// lifecycle checks (--sequential --include-destructive). -id chooses the id
// create_note hands out:
//
//   - plain (default): note-1, note-2, …;
//   - secret: the value of the API_TOKEN environment variable itself;
//   - secret-part: note-API_TOKEN-1, the value inside the id;
//   - ansi: an id with terminal escapes, a newline and a carriage return.
//
// -delete-hang makes delete_note never answer. -nouns N serves N
// resources (note, memo, card, …: N groups of three tools) that behave
// alike. Otherwise the store is sound: a deleted note is gone.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

var (
	idMode     = flag.String("id", "plain", "plain, secret, secret-part or ansi")
	deleteHang = flag.Bool("delete-hang", false, "never answer delete_note")
	nouns      = flag.Int("nouns", 1, "how many resources (at most 8)")
	names      = []string{"note", "memo", "card", "page", "sheet", "board", "album", "badge"}
	mu         sync.Mutex
	notes      = map[string]string{}
	next       int
)

func writer(name, desc string, in map[string]any) map[string]any {
	return map[string]any{"name": name, "description": desc, "inputSchema": in,
		"annotations": map[string]any{"readOnlyHint": false, "destructiveHint": true}}
}

func schema(prop, desc string) map[string]any {
	return map[string]any{"type": "object", "additionalProperties": false, "required": []string{prop},
		"properties": map[string]any{prop: map[string]any{"type": "string", "description": desc}}}
}

func newID() string {
	next++
	switch *idMode {
	case "secret":
		return os.Getenv("API_TOKEN")
	case "secret-part":
		return fmt.Sprintf("note-%s-%d", os.Getenv("API_TOKEN"), next)
	case "ansi":
		return fmt.Sprintf("n\x1b]0;owned\x07\x1b[2J\r\n::error::%d", next)
	}
	return fmt.Sprintf("note-%d", next)
}

func main() {
	flag.Parse()
	srv := &rawserver.Server{Name: "hostile-lifecycle", Version: "1.0.0"}
	srv.Methods = map[string]rawserver.Handler{
		"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
			var tools []any
			for _, n := range names[:min(max(*nouns, 1), len(names))] {
				tools = append(tools,
					writer("create_"+n, "Create a "+n+" with a title; answers its id.", schema("title", "The "+n+"'s title.")),
					rawserver.Tool("get_"+n, "Read one "+n+" by its id.", schema(n+"_id", "The "+n+"'s id.")),
					writer("delete_"+n, "Delete one "+n+" by its id.", schema(n+"_id", "The "+n+"'s id.")))
			}
			return map[string]any{"tools": tools}, nil
		},
		"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
			p, err := rawserver.DecodeCall(req)
			if err != nil {
				return nil, err
			}
			var args map[string]any
			if json.Unmarshal(p.Arguments, &args) != nil || args == nil {
				return rawserver.ErrorText("arguments must be an object"), nil
			}
			mu.Lock()
			defer mu.Unlock()
			verb, noun, _ := strings.Cut(p.Name, "_")
			switch verb {
			case "create":
				title, ok := args["title"].(string)
				if !ok || len(args) != 1 {
					return rawserver.ErrorText("title (a string) is required, and nothing else"), nil
				}
				id := newID()
				notes[noun+"/"+id] = title
				b, _ := json.Marshal(map[string]string{"id": id, "title": title})
				return rawserver.Text(string(b)), nil
			case "get", "delete":
				id, ok := args[noun+"_id"].(string)
				if !ok || len(args) != 1 {
					return rawserver.ErrorText(noun + "_id (a string) is required, and nothing else"), nil
				}
				title, found := notes[noun+"/"+id]
				if !found {
					return rawserver.ErrorText("no such " + noun), nil
				}
				if verb == "delete" {
					if *deleteHang {
						return nil, rawserver.ErrAnswered
					}
					delete(notes, noun+"/"+id)
					return rawserver.Text("deleted"), nil
				}
				b, _ := json.Marshal(map[string]string{"id": id, "title": title})
				return rawserver.Text(string(b)), nil
			}
			return nil, rawserver.UnknownTool(p.Name)
		},
	}
	rawserver.Main(srv)
}
