package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/jsontype"
)

// Limits that keep a report small (docs/BEHAVIOUR.md#outputs-and-the-report, "Reports stay small").
const (
	// MaxInlineArguments is the largest JSON encoding of a case's arguments
	// stored whole; larger arguments are stored as an [ArgumentsDigest].
	MaxInlineArguments = 1024
	// ArgumentsHeadBytes is how much of compacted arguments the digest keeps.
	ArgumentsHeadBytes = 120
	// MaxStoredText bounds text the server describes itself with (tool
	// descriptions, instructions) as the report stores it.
	MaxStoredText = 2048
	// MaxStoredName bounds the server's name, version and protocol version.
	MaxStoredName = 256
	// MaxStoredToolName bounds a tool name as stored (mcp-fuzz does not call
	// a tool whose name is longer: see engine).
	MaxStoredToolName = 1024
	// MaxStoredCapabilities bounds the capabilities object the report stores.
	MaxStoredCapabilities = 4096
)

// ArgumentsDigest stands for arguments too large to store whole: enough to
// recognise them, and to check that `mcp-fuzz replay` regenerated the very
// same bytes from the seed and the case id.
type ArgumentsDigest struct {
	// Kind is the JSON type of the arguments: object, array, string,
	// number, boolean or null ("empty" for no bytes at all).
	Kind string `json:"kind" jsonschema:"enum=object,enum=array,enum=string,enum=number,enum=boolean,enum=null,enum=empty"`
	// Bytes is the length of their JSON encoding, as sent.
	Bytes int `json:"bytes" jsonschema:"minimum=0"`
	// SHA256 is the hex SHA-256 of that encoding.
	SHA256 string `json:"sha256" jsonschema:"pattern=^[0-9a-f]{64}$"`
	// Head is the start of the encoding (at most [ArgumentsHeadBytes], cut at
	// a character boundary), for a reader to see what was sent.
	Head string `json:"head"`
	// Pattern, when the arguments are that regular, spells them out exactly
	// as literal text and repeated runs (an oversize case is a 64 KiB run of
	// one character, or 10,000 copies of one item): a generator for the
	// reproducer, and what replay sends without regenerating anything.
	Pattern []PatternPart `json:"pattern,omitempty"`
}

// String describes the digest in one line, e.g.
// `object, 65,612 bytes, sha256 3f2a…: {"query":"aaaa…`.
func (d ArgumentsDigest) String() string {
	return fmt.Sprintf("%s, %s bytes, sha256 %s: %s…", d.Kind, thousands(d.Bytes), d.SHA256, d.Head)
}

// CompactArguments returns what a [Case] stores of the arguments it sent:
// args itself when its JSON is at most [MaxInlineArguments] bytes, otherwise
// nil arguments (encoded as null) and a digest of them.
func CompactArguments(args json.RawMessage) (json.RawMessage, *ArgumentsDigest) {
	if len(args) <= MaxInlineArguments {
		return args, nil
	}
	return nil, DigestArguments(args)
}

// DigestArguments describes args whatever their size.
func DigestArguments(args json.RawMessage) *ArgumentsDigest {
	sum := sha256.Sum256(args)
	return &ArgumentsDigest{
		Kind:   jsonKind(args),
		Bytes:  len(args),
		SHA256: hex.EncodeToString(sum[:]),
		// Converted from a short prefix: a substring of string(args) would
		// keep all of args alive with the report (70 MB for 1,000 tools).
		Head:    strings.ToValidUTF8(cutUTF8(string(args[:min(len(args), ArgumentsHeadBytes+utf8.UTFMax)]), ArgumentsHeadBytes), "\uFFFD"),
		Pattern: patternOf(args),
	}
}

// Matches reports whether args are the arguments d describes.
func (d ArgumentsDigest) Matches(args json.RawMessage) bool {
	sum := sha256.Sum256(args)
	return len(args) == d.Bytes && hex.EncodeToString(sum[:]) == d.SHA256
}

// jsonKind is the JSON type of b for a digest, "empty" for no bytes.
func jsonKind(b []byte) string {
	if k := jsontype.Of(b); k != "" {
		return k
	}
	return "empty"
}

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// capText bounds s to max bytes, ending a cut text with an ellipsis and its
// full length.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return cutUTF8(s, max) + fmt.Sprintf("… (%s bytes in all)", thousands(len(s)))
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
