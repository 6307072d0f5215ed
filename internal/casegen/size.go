package casegen

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The most one case's arguments may take once encoded. A case whose
// arguments would be larger is never built: the valid call becomes a
// generator gap, a mutation is dropped and counted in [Plan.TooLarge].
const (
	MaxArgumentBytes           = 1 << 20 // default profile
	MaxArgumentBytesAggressive = 4 << 20 // with Options.Aggressive
)

// argumentCap is the size cap that applies under opts.
func argumentCap(opts Options) int {
	if opts.Aggressive {
		return MaxArgumentBytesAggressive
	}
	return MaxArgumentBytes
}

// sizeOf returns an upper bound of len(encode(v)) without encoding: exact
// for everything but strings with control characters or invalid UTF-8, which
// it counts as if each byte took a six-byte escape.
func sizeOf(v any) int {
	switch t := v.(type) {
	case nil:
		return 4
	case bool:
		if t {
			return 4
		}
		return 5
	case json.Number:
		return len(t)
	case string:
		return stringSize(t)
	case []any:
		n := 2
		for i, e := range t {
			if i > 0 {
				n++
			}
			n += sizeOf(e)
		}
		return n
	case map[string]any:
		n := 2
		i := 0
		for k, e := range t {
			if i > 0 {
				n++
			}
			n += stringSize(k) + 1 + sizeOf(e)
			i++
		}
		return n
	}
	return len(encode(v)) // not a decoded JSON value: never on the hot path
}

// stringSize bounds the encoded size of s, quotes included.
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			n += 2
		case c < 0x20 || c >= utf8.RuneSelf:
			if c >= utf8.RuneSelf {
				if r, w := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError && r != '\u2028' && r != '\u2029' {
					n += w
					i += w
					continue
				}
			}
			n += 6
		default:
			n++
		}
		i++
	}
	return n
}

// humanBytes renders a size cap for messages: "1 MiB".
func humanBytes(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
