// Command malformed-tools is a raw fixture server whose tools/list holds one
// tool for each kind of malformed metadata, plus one sane tool:
//
//	string_schema     "inputSchema": "string"
//	array_properties  "properties" is an array
//	string_required   "required" is a string
//	deep_nesting      a chain of -depth (default 5,000) nested properties
//	ref_cycle_self    a $ref that points at itself
//	ref_cycle_mutual  $defs a -> b -> a
//	huge_enum         an enum of 100,000 values
//	(no name)         a tool without a name
//	sane_tool         a well-formed tool
//
// Every tool is annotated readOnlyHint: true, and tools/call answers any name
// with a text success. At the default depth the tools/list frame is nested
// more than 10,000 levels deep, deeper than encoding/json decodes; -depth 0
// leaves deep_nesting out. -log FILE appends the method of every message
// the server reads to FILE, one a line: how a test counts the tools/call
// requests that reached it (none, for a static audit).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// enumSize is the number of values of huge_enum's enum.
const enumSize = 100000

// deepPlaceholder marks where the deep schema is spliced in.
const deepPlaceholder = `"@@deep@@"`

// deepSchema returns an object schema whose property "next" is an object
// schema whose property "next" is ... depth levels deep.
func deepSchema(depth int) []byte {
	var b bytes.Buffer
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, `{"type":"object","description":"level %d","properties":{"next":`, i)
	}
	b.WriteString(`{"type":"string","description":"the bottom"}`)
	for range depth {
		b.WriteString("}}")
	}
	return b.Bytes()
}

func toolsResult(depth int) ([]byte, error) {
	object := func(props any, required any) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required}
	}
	enum := make([]string, enumSize)
	for i := range enum {
		enum[i] = "value-" + strconv.Itoa(i)
	}
	nameless := rawserver.Tool("", "A tool that has no name.", rawserver.OneString())
	delete(nameless, "name")
	tools := []any{
		rawserver.Tool("string_schema", "A tool whose input schema is the string \"string\".", "string"),
		rawserver.Tool("array_properties", "A tool whose properties are an array.",
			object([]any{map[string]any{"name": "x", "type": "string"}}, []string{"x"})),
		rawserver.Tool("string_required", "A tool whose required is a string.",
			object(map[string]any{"x": map[string]any{"type": "string", "description": "A value."}}, "x")),
	}
	if depth > 0 {
		tools = append(tools, rawserver.Tool("deep_nesting",
			fmt.Sprintf("A tool whose input schema nests properties %d levels deep.", depth), json.RawMessage(deepPlaceholder)))
	}
	tools = append(tools,
		rawserver.Tool("ref_cycle_self", "A tool whose schema has a $ref that points at itself.", map[string]any{
			"type":       "object",
			"$defs":      map[string]any{"a": map[string]any{"$ref": "#/$defs/a"}},
			"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/a", "description": "A cycle."}},
			"required":   []string{"x"},
		}),
		rawserver.Tool("ref_cycle_mutual", "A tool whose schema has $refs a -> b -> a.", map[string]any{
			"type": "object",
			"$defs": map[string]any{
				"a": map[string]any{"$ref": "#/$defs/b"},
				"b": map[string]any{"$ref": "#/$defs/a"},
			},
			"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/a", "description": "A cycle."}},
			"required":   []string{"x"},
		}),
		rawserver.Tool("huge_enum", fmt.Sprintf("A tool whose one property has an enum of %d values.", enumSize),
			object(map[string]any{"choice": map[string]any{"type": "string", "enum": enum, "description": "One of many."}},
				[]string{"choice"})),
		nameless,
		rawserver.Tool("sane_tool", "A well-formed tool that echoes its text.", rawserver.OneString()),
	)
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		return nil, err
	}
	return bytes.Replace(data, []byte(deepPlaceholder), deepSchema(depth), 1), nil
}

func main() {
	depth := flag.Int("depth", 5000, "nesting depth of deep_nesting's properties (0 leaves the tool out)")
	logPath := flag.String("log", "", "append the method of every message read to this file")
	flag.Parse()
	result, err := toolsResult(*depth)
	if err != nil {
		fmt.Fprintf(os.Stderr, "malformed-tools: %v\n", err)
		os.Exit(1)
	}
	var onMessage func(string)
	if *logPath != "" {
		log, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "malformed-tools: %v\n", err)
			os.Exit(1)
		}
		onMessage = func(method string) { fmt.Fprintln(log, method) }
	}
	rawserver.Main(&rawserver.Server{
		OnMessage:    onMessage,
		Name:         "malformed-tools",
		Version:      "1.0.0",
		Instructions: "Fixture: tools/list holds malformed tool metadata.",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				if err := s.RespondRaw(req.ID, result); err != nil {
					return nil, err
				}
				return nil, rawserver.ErrAnswered
			},
			"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				return rawserver.Text(fmt.Sprintf("called %q", p.Name)), nil
			},
		},
	})
}
