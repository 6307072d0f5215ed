package mcptool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// CallParams are the params of a tools/call of tool name with args (none:
// an empty object).
func CallParams(name string, args json.RawMessage) json.RawMessage {
	n, _ := json.Marshal(name)
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	b := make([]byte, 0, len(n)+len(args)+32)
	b = append(b, `{"name":`...)
	b = append(b, n...)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	b = append(b, '}')
	return b
}

// TaskParams adds "task": {"ttl": limit in milliseconds} to the params of
// a tools/call, built by [CallParams] (a JSON object).
func TaskParams(params json.RawMessage, limit time.Duration) json.RawMessage {
	b := make([]byte, 0, len(params)+32)
	b = append(b, bytes.TrimSuffix(bytes.TrimSpace(params), []byte("}"))...)
	return fmt.Appendf(b, `,"task":{"ttl":%d}}`, limit.Milliseconds())
}
