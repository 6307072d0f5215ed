package repro

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
)

// sessionCurl is the curl line that sends line as the 2025 era does over
// HTTP: a session opened with initialize, the initialized notification,
// then line on that session, each with the negotiated version.
func sessionCurl(t Target, version, line string) string {
	u := ShellQuote(t.URL)
	h := curlHeaders(t)
	// The version is the server's word: quoted like any server text.
	pvHeader := ShellQuote("Mcp-Protocol-Version: " + mcpheader.Token(version))
	return fmt.Sprintf(`sid=$(curl -si %s %s -d %s | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'); `+
		`curl -s %s %s -H "Mcp-Session-Id: $sid" -H %s -d %s >/dev/null; `+
		`curl -s %s %s -H "Mcp-Session-Id: $sid" -H %s -d %s`,
		u, h, ShellQuote(initialize), u, h, pvHeader, ShellQuote(initialized), u, h, pvHeader, ShellQuote(line))
}

// curlHeaders are the headers every curl reproducer sends: the content
// types, and the user's --header names with their values left to
// environment variables (no secret is printed).
func curlHeaders(t Target) string {
	return `-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'` + userCurlHeaders(t)
}

// userCurlHeaders are the user's --header names as curl words, each after
// a space, their values left to environment variables in double quotes (so
// that the shell expands them), and, when the run sent a bearer token, the
// Authorization header that --bearer makes, its token left to
// $MCP_FUZZ_BEARER. No value is ever printed.
func userCurlHeaders(t Target) string {
	var h string
	for _, n := range t.Headers {
		if t.Bearer && strings.EqualFold(n, "Authorization") {
			continue // --bearer replaces it, as on the wire
		}
		h += " -H " + headerFromEnv(n)
	}
	if t.Bearer {
		h += ` -H "Authorization: Bearer $` + BearerEnv + `"`
	}
	return h
}

// BearerEnv is the environment variable that holds the bearer token when
// --bearer is not given, and the one reproducers name in its place.
const BearerEnv = "MCP_FUZZ_BEARER"

// headerFromEnv is a shell word for the header "name: $NAME", the value
// left to the shell variable named after the header.
func headerFromEnv(name string) string {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(name)
	return `"` + esc + ": $" + HeaderEnv(name) + `"`
}

// HeaderEnv is the environment variable that reproducers (and replay)
// read the value of header from, so that secrets never appear in them:
// X-Tenant's is X_TENANT.
func HeaderEnv(header string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(header))
}

// paramCurlHeaders are the -H words of a reproducer for the Mcp-Param
// headers of a call of toolName with args, sorted; "" when there are none.
// Names were validated as HTTP tokens; values are visible ASCII; both are
// shell-quoted all the same.
func paramCurlHeaders(table map[string][]mcpheader.Binding, toolName string, args json.RawMessage) string {
	h := mcpheader.Headers(table[toolName], args)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(h)) {
		b.WriteString(" -H " + ShellQuote(k+": "+h.Get(k)))
	}
	return b.String()
}
