package mcpheader

import (
	"encoding/base64"
	"strings"
)

// Token is v when it is a plain version token (letters, digits, '.',
// '-', '_'; at most 64 bytes) and "" otherwise: a server's protocolVersion
// goes into an HTTP header and a reproducer only in that shape.
func Token(v string) string {
	if len(v) == 0 || len(v) > 64 {
		return ""
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return ""
		}
	}
	return v
}

// NameValue is the Mcp-Name header value for name: as it is when it is
// visible ASCII without edge spaces, else base64 in the =?base64?…?= form
// the Streamable HTTP transport of 2026-07-28 uses.
func NameValue(name string) string {
	plain := name != "" && name == strings.TrimSpace(name)
	for i := 0; plain && i < len(name); i++ {
		plain = name[i] >= 0x20 && name[i] < 0x7f
	}
	if plain {
		return name
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(name)) + "?="
}
