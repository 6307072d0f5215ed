package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/lint"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
)

// benchTools is a listing of 100 tools: half a realistic 10-property schema
// with an outputSchema, half a one-property schema.
func benchTools() []json.RawMessage {
	b, err := os.ReadFile("../../testdata/schemas/search_issues.json")
	if err != nil {
		panic(err)
	}
	search := strings.TrimSpace(string(b))
	const output = `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"},"number":{"type":"integer"}}}}}}`
	const trivial = `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	var raws []json.RawMessage
	for i := range 100 {
		var t string
		if i%2 == 0 {
			t = fmt.Sprintf(`{"name":"search_%d","description":"Search issues.","inputSchema":%s,"outputSchema":%s,"annotations":{"readOnlyHint":true}}`, i, search, output)
		} else {
			t = fmt.Sprintf(`{"name":"get_%d","description":"Get one item.","inputSchema":%s,"annotations":{"readOnlyHint":true}}`, i, trivial)
		}
		raws = append(raws, json.RawMessage(t))
	}
	return raws
}

// BenchmarkSchemaAnalysis measures what a run does with the schemas of 100
// listed tools besides calling them: lint them, and take each input schema
// for case generation (with its problems) and each output schema for output
// validation.
func BenchmarkSchemaAnalysis(b *testing.B) {
	raws := benchTools()
	s := &session.Session{}
	b.ReportAllocs()
	for b.Loop() {
		tools, _ := mcptool.Decode(raws)
		staticLint(s, tools)
		for _, t := range tools {
			in, _ := t.Compiled()
			lint.SchemaProblems(t.Name, in)
			t.OutputValidator()
		}
	}
}
