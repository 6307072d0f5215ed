// Command vuln-tools is a fixture server whose tools have real security
// flaws, for tests that must see an exploit succeed; with -fixed it is their
// clean twin: the same tool names, descriptions and input schemas, the flaws
// fixed. Every tool is read-only, takes one required string and answers with
// text, or with an isError result and a short message.
//
//   - read_file {path}: flawed, an absolute path is read as given and a
//     relative one is joined to the root, so "../x" and "/etc/passwd" escape
//     (path traversal).
//   - read_note {name}: flawed, the joined path is checked with a bare
//     prefix test against the root, so a sibling directory whose name starts
//     with the root's ("../<root>-outside/x") passes, and symlinks are
//     followed.
//   - open_doc {path}: flawed, absolute paths and ".." are refused, but a
//     symlink inside the root that points outside is followed.
//   - ping_host {host}: flawed, runs `sh -c "echo pinging " + host` and
//     answers its output, so "x; cmd" runs cmd (command injection). Nothing
//     is pinged.
//   - render_greeting {template}: flawed, the input is parsed and executed
//     as a text/template (template injection). A Go template reaches only
//     its built-in functions and the data it is given, not code of the
//     attacker's choosing: mcp-fuzz's code_injection does not claim it.
//   - fetch_url {url}: flawed, fetches any URL, loopback and private
//     addresses included (server-side request forgery).
//   - sort_lines {file}: flawed, runs `sort FILE` (no shell) in the root
//     without "--" before the operand, so "-o/some/path" is an option that
//     makes sort write a file (argument injection); ".." escapes too.
//
// The twin confines the three file tools alike: it refuses absolute paths
// and paths that leave the root by name, resolves the symlinks of what is
// left, requires the result to be the root or under it (a prefix test that
// ends with a separator), and opens it through an os.Root, so a symlink
// swapped in after the check cannot escape either. Its ping_host runs no
// shell and accepts only a host name or an IP address (letters, digits,
// dots, hyphens and colons, not starting with a hyphen); its
// render_greeting answers the template text as it is; its sort_lines
// confines the file like the file tools and puts "--" before it; its
// fetch_url takes
// only http and https URLs, uses no proxy, and refuses in the dialer every
// address that is not public (loopback, private, link-local, unspecified,
// multicast and a few more), so a redirect or another spelling of
// 127.0.0.1 is refused as well.
//
// -root DIR (required) is the directory the file tools are confined to.
// -public HOST:PORT is an address the twin's fetch_url treats as public:
// tests, which use the network only on 127.0.0.1, stand a local server in
// for the internet with it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

const (
	maxRead   = 64 << 10 // bytes a file tool reads, at most
	maxOutput = 64 << 10 // bytes of command or template output kept
	maxBody   = 1 << 10  // bytes of a fetched body answered
	timeout   = 5 * time.Second
)

// server is the state the tools share.
type server struct {
	fixed bool
	root  string // absolute and clean, as given
	// The twin's: the root with its symlinks resolved, opened.
	real   string
	rootFS *os.Root
	client *http.Client
	public netip.AddrPort // -public, or the zero value
}

func main() {
	root := flag.String("root", "", "the directory the file tools are confined to (required)")
	fixed := flag.Bool("fixed", false, "serve the clean twin: the same tools with the flaws fixed")
	public := flag.String("public", "", "HOST:PORT the twin's fetch_url treats as a public address")
	flag.Parse()
	s, err := newServer(*root, *fixed, *public)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vuln-tools: %v\n", err)
		os.Exit(2)
	}
	sdkserver.Main("vuln-tools", "Fixture: file, host, template and web tools.", s.addTools)
}

func newServer(root string, fixed bool, public string) (*server, error) {
	if root == "" {
		return nil, errors.New("-root DIR is required")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("-root %s is not a directory", root)
	}
	s := &server{fixed: fixed, root: abs}
	if public != "" {
		if s.public, err = netip.ParseAddrPort(public); err != nil {
			return nil, fmt.Errorf("-public: %v", err)
		}
	}
	if !fixed {
		s.client = &http.Client{Timeout: timeout}
		return s, nil
	}
	if s.real, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, err
	}
	if s.rootFS, err = os.OpenRoot(s.real); err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: timeout, Control: s.refuseNotPublic}
	s.client = &http.Client{
		Timeout: timeout,
		// No Proxy: a proxy would dial the address for us, unchecked.
		Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout},
	}
	return s, nil
}

// tool describes one tool: its one string parameter and what answers it.
type tool struct {
	name, title, description string
	param, paramDescription  string
	format                   string // of the parameter, if any
	run                      func(ctx context.Context, v string) *mcp.CallToolResult
}

func (s *server) addTools(srv *mcp.Server) {
	tools := []tool{
		{"read_file", "Read file", "Read a text file under the server's root directory; path is relative to the root.",
			"path", "The file's path, relative to the root.", "", s.readFile},
		{"read_note", "Read note", "Read a note by its file name in the root directory.",
			"name", "The note's file name.", "", s.readNote},
		{"open_doc", "Open document", "Open a document under the root.",
			"path", "The document's path, relative to the root.", "", s.openDoc},
		{"ping_host", "Ping host", "Check that a host answers.",
			"host", "A host name or IP address.", "", s.pingHost},
		{"render_greeting", "Render greeting", "Render a greeting from a template text.",
			"template", "The greeting's template text.", "", s.renderGreeting},
		{"fetch_url", "Fetch URL", "Fetch a web page and return its first kilobyte.",
			"url", "The page's http or https URL.", "uri", s.fetchURL},
		{"sort_lines", "Sort lines", "Sort the lines of a file under the root with the sort command.",
			"file", "The file's name, relative to the root.", "", s.sortLines},
	}
	for _, t := range tools {
		prop := map[string]any{"type": "string", "description": t.paramDescription}
		if t.format != "" {
			prop["format"] = t.format
		}
		schema, err := json.Marshal(map[string]any{
			"type":                 "object",
			"properties":           map[string]any{t.param: prop},
			"required":             []string{t.param},
			"additionalProperties": false,
		})
		if err != nil {
			panic(err)
		}
		srv.AddTool(&mcp.Tool{
			Name:        t.name,
			Description: t.description,
			Annotations: &mcp.ToolAnnotations{Title: t.title, ReadOnlyHint: true},
			InputSchema: json.RawMessage(schema),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, ok := stringArg(req.Params.Arguments, t.param)
			if !ok {
				return sdkserver.ToolError(fmt.Sprintf("%s needs {%q: string} and nothing else", t.name, t.param)), nil
			}
			return t.run(ctx, v), nil
		})
	}
}

// stringArg returns the string argument key, when the arguments are an
// object with that one member.
func stringArg(raw json.RawMessage, key string) (string, bool) {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || len(args) != 1 {
		return "", false
	}
	var v string
	m, ok := args[key]
	if !ok || len(m) == 0 || m[0] != '"' || json.Unmarshal(m, &v) != nil {
		return "", false
	}
	return v, true
}

// outside is the answer to a path that leaves the root.
func outside() *mcp.CallToolResult { return sdkserver.ToolError("outside the root") }

// readFile's flaw: an absolute path is read as given, and Join lets ".."
// climb out of the root.
func (s *server) readFile(_ context.Context, p string) *mcp.CallToolResult {
	if s.fixed {
		return s.readConfined(p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.root, p)
	}
	return readText(p, func() (*os.File, error) { return os.Open(p) })
}

// readNote's flaw: the prefix test has no separator, so the root's sibling
// "<root>-outside" passes it; and symlinks are followed.
func (s *server) readNote(_ context.Context, name string) *mcp.CallToolResult {
	if s.fixed {
		return s.readConfined(name)
	}
	joined := filepath.Join(s.root, name)
	if !strings.HasPrefix(joined, s.root) {
		return outside()
	}
	return readText(joined, func() (*os.File, error) { return os.Open(joined) })
}

// openDoc's flaw: the path is checked by name only, so a symlink under the
// root that points outside it is followed.
func (s *server) openDoc(_ context.Context, p string) *mcp.CallToolResult {
	if s.fixed {
		return s.readConfined(p)
	}
	if !filepath.IsLocal(p) { // absolute, empty, or ".." once cleaned
		return outside()
	}
	joined := filepath.Join(s.root, p)
	return readText(joined, func() (*os.File, error) { return os.Open(joined) })
}

// readConfined is the twin's file tool: p must name, once its symlinks are
// resolved, the root or a file under it.
func (s *server) readConfined(p string) *mcp.CallToolResult {
	resolved, refused := s.confine(p)
	if refused != nil {
		return refused
	}
	rel, err := filepath.Rel(s.real, resolved)
	if err != nil {
		return outside()
	}
	return readText(resolved, func() (*os.File, error) { return s.rootFS.Open(rel) })
}

// confine resolves p, relative to the root, to a path that is the root or
// under it once its symlinks are resolved; otherwise it returns the answer
// that refuses it.
func (s *server) confine(p string) (string, *mcp.CallToolResult) {
	// By name first, so that what lies outside is not even looked at.
	joined := filepath.Join(s.real, p)
	if filepath.IsAbs(p) || !within(s.real, joined) {
		return "", outside()
	}
	resolved, err := filepath.EvalSymlinks(joined)
	if err != nil {
		return "", sdkserver.ToolError("no such file")
	}
	if !within(s.real, resolved) {
		return "", outside()
	}
	return resolved, nil
}

// within reports whether p is root or a path under it; both are clean.
func within(root, p string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// readText answers with the first maxRead bytes of the regular file at
// path, opened with open. Anything else (a directory, a device, a pipe) is
// refused before it is opened, so that no read blocks.
func readText(path string, open func() (*os.File, error)) *mcp.CallToolResult {
	fi, err := os.Stat(path)
	if err != nil {
		return sdkserver.ToolError("no such file")
	}
	if !fi.Mode().IsRegular() {
		return sdkserver.ToolError("not a regular file")
	}
	f, err := open()
	if err != nil {
		return sdkserver.ToolError("cannot open the file")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRead))
	if err != nil {
		return sdkserver.ToolError("cannot read the file")
	}
	return sdkserver.Text(string(data))
}

// hostPattern is what the twin's ping_host accepts: a host name or an IPv4
// or IPv6 address, which cannot start with a hyphen (an option).
var hostPattern = regexp.MustCompile(`^[A-Za-z0-9:][A-Za-z0-9.:-]{0,252}$`)

// pingHost's flaw: the host is pasted into a shell command line.
func (s *server) pingHost(ctx context.Context, host string) *mcp.CallToolResult {
	if s.fixed {
		if !hostPattern.MatchString(host) {
			return sdkserver.ToolError("not a host name or IP address")
		}
		return sdkserver.Text("pinging " + host)
	}
	// By its path: mcp-fuzz may start the server without a PATH.
	return run(ctx, "", "/bin/sh", "-c", "echo pinging "+host)
}

// run runs a program in dir for at most the timeout and answers its
// output, capped.
func run(ctx context.Context, dir, program string, args ...string) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return sdkserver.ToolError(strings.TrimSpace(out.String() + "\n" + err.Error()))
	}
	return sdkserver.Text(out.String())
}

// sortLines' flaw: the file is passed to sort as its first word, where a
// leading "-" makes it an option ("-oFILE" writes FILE).
func (s *server) sortLines(ctx context.Context, file string) *mcp.CallToolResult {
	if !s.fixed {
		return run(ctx, s.root, "/usr/bin/sort", file)
	}
	resolved, refused := s.confine(file)
	if refused != nil {
		return refused
	}
	return run(ctx, s.root, "/usr/bin/sort", "--", resolved)
}

// renderGreeting's flaw: the input is a template, and runs.
func (s *server) renderGreeting(_ context.Context, text string) *mcp.CallToolResult {
	if s.fixed {
		return sdkserver.Text(text)
	}
	t, err := template.New("greeting").Parse(text)
	if err != nil {
		return sdkserver.ToolError(err.Error())
	}
	var out capped
	if err := t.Execute(&out, struct{ Name string }{"friend"}); err != nil {
		return sdkserver.ToolError(err.Error())
	}
	return sdkserver.Text(out.String())
}

// capped keeps the first maxOutput bytes written to it, and fails the
// write that would go beyond, so that a runaway template or command stops.
// It has only Write (no ReadFrom or WriteString to go around the cap).
type capped struct{ buf bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:room])
		return room, errors.New("output too long")
	}
	return c.buf.Write(p)
}

func (c *capped) String() string { return c.buf.String() }

var errNotPublic = errors.New("refused: not a public address")

// fetchURL's flaw: any address is fetched, this machine's and its
// network's included.
func (s *server) fetchURL(ctx context.Context, raw string) *mcp.CallToolResult {
	if s.fixed {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return sdkserver.ToolError("refused: only http and https URLs")
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return sdkserver.ToolError(err.Error())
	}
	resp, err := s.client.Do(req)
	if errors.Is(err, errNotPublic) {
		return sdkserver.ToolError(errNotPublic.Error())
	}
	if err != nil {
		return sdkserver.ToolError(err.Error())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return sdkserver.ToolError(err.Error())
	}
	return sdkserver.Text(resp.Proto + " " + resp.Status + "\n" + string(body))
}

// refuseNotPublic is the twin's dialer check: it sees the address about to
// be dialled, after name resolution, for every connection, redirects'
// included.
func (s *server) refuseNotPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errNotPublic
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if s.public.IsValid() && ap == s.public {
		return nil
	}
	if !isPublic(ap.Addr()) {
		return errNotPublic
	}
	return nil
}

// notPublic holds the ranges isPublic refuses beyond netip's predicates:
// "this network", shared (carrier-grade NAT) space, IPv6 site-local, and
// NAT64, which reaches any IPv4 address, private ones too.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// isPublic reports whether a is an address on the internet at large.
func isPublic(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() ||
		a.IsMulticast() || !a.IsGlobalUnicast() { // the last: the IPv4 broadcast address
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
