package gate

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Size is how large an answer is, measured as the audit measures a bloated
// answer (pkg/engine): the characters of its text blocks, each counted with
// the newline the audit joins them by, plus the bytes of its
// structuredContent serialized as compact JSON. Other blocks (images, audio,
// resources) do not count. A nil result has size 0.
//
// The audit counts the structuredContent bytes as they came over the wire;
// the gate sees only the decoded value and serializes it again, without HTML
// escaping, so the two agree except for whitespace and key order the server
// chose.
func Size(res *mcp.CallToolResult) int {
	if res == nil {
		return 0
	}
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && t != nil {
			n += utf8.RuneCountInString(t.Text) + 1
		}
	}
	if res.StructuredContent != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(res.StructuredContent) == nil {
			n += len(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		}
	}
	return n
}
