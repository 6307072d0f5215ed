// Package jsonclip cuts JSON documents down to a maximum nesting depth, so a
// hostile or careless peer cannot make a whole message undecodable by nesting
// one value thousands of levels deep (decoders refuse such documents whole).
package jsonclip

// Marker is the string that replaces a clipped value.
const Marker = "x-mcp-fuzz-clipped: nested too deep"

var replacement = []byte(`"` + Marker + `"`)

// Depth reports the maximum nesting depth of arrays and objects in data,
// ignoring brackets inside strings. It does not validate data.
func Depth(data []byte) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
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
	out := make([]byte, 0, len(data))
	depth := 0
	inString, escaped := false, false
	skipping := 0 // depth at which the value being skipped opened, 0 when not skipping
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			if skipping == 0 {
				out = append(out, c)
			}
			continue
		}
		switch c {
		case '"':
			inString = true
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
		if skipping == 0 {
			out = append(out, c)
		}
	}
	return out, true
}
