package engine

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
)

// excerpt shortens s to at most n runes on one line.
func excerpt(s string, n int) string { return textcut.Excerpt(s, n) }

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string { return textcut.UTF8(s, n) }

// plural says "1 case" or "2 cases".
func plural(n int, one, many string) string { return words.Plural(n, one, many) }
