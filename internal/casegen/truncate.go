package casegen

// maxJSONDepth is the nesting (objects and arrays) kept from an inputSchema.
// Deeper values are replaced by true: the validator's compile time grows
// quadratically with depth (5,000 levels take minutes), and generation stops
// at maxDepth schema levels anyway, far above this cut.
const maxJSONDepth = 128

// truncateDepth copies raw, replacing every object or array that starts
// deeper than limit with `true`. It only tracks strings and brackets; invalid
// JSON stays invalid for the decoder to report.
func truncateDepth(raw []byte, limit int) ([]byte, bool) {
	if !deeperThan(raw, limit) {
		return raw, false
	}
	out := make([]byte, 0, len(raw))
	depth, skip := 0, 0 // skip > 0: inside a dropped value, at that relative depth
	inStr, esc := false, false
	for _, b := range raw {
		if inStr {
			if skip == 0 {
				out = append(out, b)
			}
			switch {
			case esc:
				esc = false
			case b == '\\':
				esc = true
			case b == '"':
				inStr = false
			}
			continue
		}
		switch b {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			if skip > 0 {
				skip++
				continue
			}
			if depth > limit {
				skip = 1
				out = append(out, "true"...)
				continue
			}
		case '}', ']':
			depth--
			if skip > 0 {
				skip--
				continue
			}
		}
		if skip == 0 {
			out = append(out, b)
		}
	}
	return out, true
}

// deeperThan reports whether raw nests objects or arrays deeper than limit.
func deeperThan(raw []byte, limit int) bool {
	depth := 0
	inStr, esc := false, false
	for _, b := range raw {
		if inStr {
			switch {
			case esc:
				esc = false
			case b == '\\':
				esc = true
			case b == '"':
				inStr = false
			}
			continue
		}
		switch b {
		case '"':
			inStr = true
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}
