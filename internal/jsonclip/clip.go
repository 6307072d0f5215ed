// Package jsonclip cuts JSON documents down to a maximum nesting depth, so a
// hostile or careless peer cannot make a whole message undecodable by nesting
// one value thousands of levels deep (decoders refuse such documents whole).
package jsonclip

// Marker is the string that replaces a clipped value.
const Marker = "x-mcp-fuzz-clipped: nested too deep"

var replacement = []byte(`"` + Marker + `"`)

// stringState tracks whether a byte stream is inside a JSON string.
type stringState struct{ in, escaped bool }

// consume reports whether c belongs to a string (its quotes included), and
// so is no bracket.
func (s *stringState) consume(c byte) bool {
	switch {
	case s.in && s.escaped:
		s.escaped = false
	case s.in && c == '\\':
		s.escaped = true
	case s.in && c == '"':
		s.in = false
	case s.in:
	case c == '"':
		s.in = true
	default:
		return false
	}
	return true
}

// Depth reports the maximum nesting depth of arrays and objects in data,
// ignoring brackets inside strings. It does not validate data.
func Depth(data []byte) int {
	var str stringState
	depth, max := 0, 0
	for _, c := range data {
		if str.consume(c) {
			continue
		}
		switch c {
		case '{', '[':
			if depth++; depth > max {
				max = depth
			}
		case '}', ']':
			depth--
		}
	}
	return max
}

// Clip returns data with every array or object that would open deeper than
// maxDepth replaced by the string [Marker]. It reports whether
// anything was cut. Valid JSON stays valid; data within the limit is returned
// unchanged.
func Clip(data []byte, maxDepth int) ([]byte, bool) {
	return ClipWith(data, maxDepth, replacement)
}

// ClipWith is [Clip] with another replacement value, which must be a JSON
// scalar (such as `true`, a schema that allows anything) so the depth limit
// holds.
func ClipWith(data []byte, maxDepth int, replacement []byte) ([]byte, bool) {
	if Depth(data) <= maxDepth {
		return data, false
	}
	var str stringState
	out := make([]byte, 0, len(data))
	depth := 0
	skipping := 0 // depth at which the value being skipped opened, 0 when not skipping
	for _, c := range data {
		if !str.consume(c) {
			switch c {
			case '{', '[':
				depth++
				if depth > maxDepth && skipping == 0 {
					skipping = depth
					out = append(out, replacement...)
					continue
				}
			case '}', ']':
				depth--
				if skipping != 0 {
					if depth < skipping {
						skipping = 0
					}
					continue
				}
			}
		}
		if skipping == 0 {
			out = append(out, c)
		}
	}
	return out, true
}
