// Package jsontype names the JSON type of a raw value from its first
// significant byte, without decoding it.
package jsontype

import "bytes"

// Of returns "object", "array", "string", "boolean", "null" or "number" for
// a JSON value, and "" for empty input. It does not validate v.
func Of(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
