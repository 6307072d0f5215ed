package leak

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// UnescapeJSON decodes the JSON string escapes in s (\uXXXX, surrogate pairs,
// \n, \", …) wherever they are, leaving anything else as it is. It is for
// excerpts of raw server output, which may be cut JSON: a secret the server
// wrote as \u0073\u006b… must look like the secret to the redactor.
func UnescapeJSON(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
			i += 2
		case 'n':
			b.WriteByte('\n')
			i += 2
		case 't':
			b.WriteByte('\t')
			i += 2
		case 'r':
			b.WriteByte('\r')
			i += 2
		case 'b', 'f':
			i += 2
		case 'u':
			r, n := hexRune(s[i:])
			if n == 0 {
				b.WriteByte(s[i])
				i++
				continue
			}
			if utf16.IsSurrogate(r) {
				if r2, n2 := hexRune(s[i+n:]); n2 > 0 {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						b.WriteRune(pair)
						i += n + n2
						continue
					}
				}
			}
			b.WriteRune(r)
			i += n
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// hexRune reads \uXXXX at the start of s; n is 0 when there is none.
func hexRune(s string) (rune, int) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[2:6], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 6
}
