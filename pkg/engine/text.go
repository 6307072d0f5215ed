package engine

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

// excerpt shortens s to at most n runes on one line.
func excerpt(s string, n int) string { return textcut.Excerpt(s, n) }

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string { return textcut.UTF8(s, n) }
