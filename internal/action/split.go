package action

import (
	"errors"
	"strings"
)

// splitCommand splits a command line the way a POSIX shell splits words,
// without expanding anything: single quotes keep everything literally, double
// quotes keep everything but \" \\ \$ \` and a backslash-newline, and an
// unquoted backslash escapes the next character. A newline outside quotes
// separates words like a space.
func splitCommand(s string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		rs      = []rune(s)
		quoteOf rune
	)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quoteOf == '\'':
			if c == '\'' {
				quoteOf = 0
			} else {
				cur.WriteRune(c)
			}
		case quoteOf == '"':
			switch {
			case c == '"':
				quoteOf = 0
			case c == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]):
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
				}
			default:
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quoteOf, inWord = c, true
		case c == '\\':
			if i+1 >= len(rs) {
				return nil, errors.New("command ends with a backslash")
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				inWord = true
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if quoteOf != 0 {
		return nil, errors.New("unterminated " + string(quoteOf) + " quote in command")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// lines returns the non-empty, trimmed lines of a multi-line input.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// list returns the items of a comma- or newline-separated input.
func list(s string) []string {
	var out []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
