// Command prompts-resources is a raw fixture server of the 2025 era with a
// tool, a resource template and a prompt with a required argument, for the
// resources and prompts checks and the protocol probes: it refuses every
// malformed request as the specification says. With --deviant it behaves
// like the TypeScript SDK: no answer to a request whose params are not an
// object, -32603 for a malformed template parameter or a wrong-typed prompt
// argument, and any tools/list cursor served. With --crash-on-template it
// exits on a malformed template parameter.
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

var (
	deviant = slices.Contains(os.Args[1:], "--deviant")
	crash   = slices.Contains(os.Args[1:], "--crash-on-template")
)

const prefix = "note://notes/"

func invalid(msg string) error { return &rawserver.Error{Code: -32602, Message: msg} }

func main() {
	spawn.Record("server")
	methods := rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
		"resources/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
			return map[string]any{"resources": []any{map[string]any{"uri": prefix + "hello", "name": "hello"}}}, nil
		},
		"resources/templates/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
			return map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": prefix + "{name}", "name": "note"}}}, nil
		},
		"resources/read": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
			var p struct {
				URI string `json:"uri"`
			}
			_ = json.Unmarshal(req.Params, &p)
			name, ok := strings.CutPrefix(p.URI, prefix)
			switch {
			case ok && name == "hello":
				return map[string]any{"contents": []any{map[string]any{"uri": p.URI, "text": "hello"}}}, nil
			case ok && strings.ContainsAny(name, "% <>") && crash:
				os.Exit(4)
			case ok && strings.ContainsAny(name, "% <>") && deviant:
				return nil, &rawserver.Error{Code: -32603, Message: "URIError: URI malformed"}
			}
			return nil, invalid("resource not found: " + p.URI)
		},
		"prompts/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
			return map[string]any{"prompts": []any{map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}}}}, nil
		},
		"prompts/get": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
			var p struct {
				Name      string                     `json:"name"`
				Arguments map[string]json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if p.Name != "greet" {
				return nil, invalid("unknown prompt " + p.Name)
			}
			var who string
			if err := json.Unmarshal(p.Arguments["who"], &who); err != nil {
				if deviant && p.Arguments["who"] != nil {
					return nil, &rawserver.Error{Code: -32603, Message: "expected string"}
				}
				return nil, invalid(`argument "who" is required and must be a string`)
			}
			return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hello " + who}}}}, nil
		},
	})
	list := methods["tools/list"]
	methods["tools/list"] = func(s *rawserver.Server, req *rawserver.Request) (any, error) {
		params := bytes.TrimSpace(req.Params)
		if len(params) > 0 && params[0] != '{' {
			if deviant {
				return nil, rawserver.ErrAnswered // no answer at all
			}
			return nil, invalid("params must be an object")
		}
		var p struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Cursor != nil && !deviant {
			return nil, invalid("unknown cursor")
		}
		return list(s, req)
	}
	rawserver.Main(&rawserver.Server{Name: "prompts-resources", Version: "1.0.0", Methods: methods,
		Capabilities: map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}}})
}
