package casegen

import "github.com/mcp-fuzz/mcp-fuzz/internal/jsonclip"

// MaxJSONDepth is the nesting (objects and arrays) kept from a schema.
// Deeper values are replaced by true: the validator's compile time grows
// quadratically with depth (5,000 levels take minutes), and generation stops
// at maxDepth schema levels anyway, far above this cut.
const MaxJSONDepth = 128

// truncateDepth copies raw, replacing every object or array that starts
// deeper than limit with `true`. It only tracks strings and brackets; invalid
// JSON stays invalid for the decoder to report.
func truncateDepth(raw []byte, limit int) ([]byte, bool) {
	return jsonclip.ClipWith(raw, limit, []byte("true"))
}
