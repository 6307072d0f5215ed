// Command needs-learning is a fixture server whose tools reject made-up
// input but accept values the server itself names: in an error message
// (get_color), in a read-only listing (list_roots, then list_dir for a file
// that read_doc opens), in resources/list (get_resource) or in its schema's
// second example (pick_size), or in the answer of a read-only tool called
// before (browse_tickets, then get_ticket). find_item names an id whose
// lookup hangs; get_vault_entry names a secret of its environment, which
// must never be learned; get_note's real note leaks a stack trace.
// Destructive look-alikes (list_trash, purge_doc) must never be called to
// learn, nor list_private when the run skips it.
//
// With NEEDS_LEARNING_LOG set, every tools/call is appended to that file as
// one line, "TOOL ARGUMENTS", so tests can see what was called.
//
// NEEDS_LEARNING_MODE makes a listing that learning calls fail:
//   - crash-dir: list_dir of /srv/beta exits the process with status 139;
//   - hang-dir: list_dir of /srv/beta never answers (the server stays alive);
//   - wedge-roots: list_roots never answers, and the server stops answering
//     ping once it hung (a single-threaded server stuck in the call).
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

var logMu sync.Mutex

// wedged is set once list_roots hung in mode wedge-roots: ping hangs too.
var wedged atomic.Bool

func mode() string { return os.Getenv("NEEDS_LEARNING_MODE") }

func logCall(req *mcp.CallToolRequest) {
	path := os.Getenv("NEEDS_LEARNING_LOG")
	if path == "" {
		return
	}
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", req.Params.Name, req.Params.Arguments)
}

// arg is the string argument key of req ("" when absent or not a string).
func arg(req *mcp.CallToolRequest, key string) string {
	var args map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &args)
	s, _ := args[key].(string)
	return s
}

func yes() *bool { b := true; return &b }

type handler func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)

func add(s *mcp.Server, t *mcp.Tool, h handler) {
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		logCall(req)
		return h(ctx, req)
	})
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true}
}

func destructive(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: yes()}
}

const pathSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`

const outside = "Access denied - path outside allowed directories: %s not in /srv/alpha, /srv/beta"

func main() {
	sdkserver.Main("needs-learning", "Fixture: tools that only accept values the server names.", func(s *mcp.Server) {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "ping" && wedged.Load() {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return next(ctx, method, req)
			}
		})
		s.AddResource(&mcp.Resource{URI: "mem://docs/readme", Name: "readme", MIMEType: "text/plain"},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "readme"}}}, nil
			})
		add(s, &mcp.Tool{
			Name: "browse_tickets", Description: "Show the recent tickets.", Annotations: readOnly("Browse tickets"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return sdkserver.Text("Recent tickets: TCK-42 (open)"), nil
		})
		add(s, &mcp.Tool{
			Name: "get_ticket", Description: "Fetch a ticket.", Annotations: readOnly("Get ticket"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ticket_id":{"type":"string"}},"required":["ticket_id"]}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if arg(req, "ticket_id") != "TCK-42" {
				return sdkserver.ToolError("ticket not found"), nil
			}
			return sdkserver.Text("TCK-42: printer on fire"), nil
		})
		add(s, &mcp.Tool{
			Name: "get_vault_entry", Description: "Read a vault entry.", Annotations: readOnly("Get vault entry"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"key_name":{"type":"string"}},"required":["key_name"]}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Names a secret of its environment among the keys it knows:
			// mcp-fuzz must never send it back, nor report it.
			// It also names transformed forms of it, which redaction does
			// not catch: its first 12 characters, upper-cased, in base64,
			// reversed.
			secret := os.Getenv("NEEDS_LEARNING_VAULT_KEY")
			if k := arg(req, "key_name"); k == "" || k != secret {
				names := secret
				if len(secret) >= 12 {
					r := []byte(secret)
					slices.Reverse(r)
					names = strings.Join([]string{secret, secret[:12], strings.ToUpper(secret), base64.StdEncoding.EncodeToString([]byte(secret)), string(r)}, ", ")
				}
				return sdkserver.ToolError(fmt.Sprintf("unknown key: expected one of: %s", names)), nil
			}
			return sdkserver.Text("vault entry"), nil
		})
		add(s, &mcp.Tool{
			Name: "get_note", Description: "Fetch a note.", Annotations: readOnly("Get note"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"note_id":{"type":"string"}},"required":["note_id"]}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if arg(req, "note_id") != "note-1" {
				return sdkserver.ToolError("unknown note; the only note is 'note-1'"), nil
			}
			// The real note's lookup fails with a stack trace: a leak that
			// learning must report, not drop.
			return sdkserver.ToolError("Error: disk gone\n    at readNote (/app/src/notes.js:12:7)"), nil
		})
		add(s, &mcp.Tool{
			Name: "list_roots", Description: "List the directories this server may read.", Annotations: readOnly("List roots"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if mode() == "wedge-roots" {
				wedged.Store(true)
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return sdkserver.Text("Allowed directories:\n/srv/alpha\n/srv/beta"), nil
		})
		add(s, &mcp.Tool{
			Name: "list_dir", Description: "List one directory.", Annotations: readOnly("List directory"),
			InputSchema: json.RawMessage(pathSchema),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch p := arg(req, "path"); {
			case p == "/srv/beta" && mode() == "crash-dir":
				os.Exit(139)
			case p == "/srv/beta" && mode() == "hang-dir":
				<-ctx.Done()
				return nil, ctx.Err()
			}
			switch p := arg(req, "path"); p {
			case "/srv/alpha":
				return sdkserver.Text("[DIR] sub\n[FILE] notes.txt"), nil
			case "/srv/beta":
				return sdkserver.Text("(empty)"), nil
			default:
				return sdkserver.ToolError(fmt.Sprintf("ENOTDIR: not a directory, scandir '%s'", p)), nil
			}
		})
		add(s, &mcp.Tool{
			Name: "read_doc", Description: "Read one document.", Annotations: readOnly("Read document"),
			InputSchema: json.RawMessage(pathSchema),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch p := arg(req, "path"); p {
			case "/srv/alpha/notes.txt":
				return sdkserver.Text("notes: hello"), nil
			case "/srv/alpha", "/srv/beta", "/srv/alpha/sub":
				return sdkserver.ToolError("EISDIR: illegal operation on a directory, read"), nil
			default:
				return sdkserver.ToolError(fmt.Sprintf(outside, p)), nil
			}
		})
		add(s, &mcp.Tool{
			Name: "get_color", Description: "Describe a color.", Annotations: readOnly("Get color"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"color_name":{"type":"string","minLength":1,"maxLength":30},"shade":{"type":"integer","minimum":0,"maximum":9}},"required":["color_name"],"additionalProperties":false}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if c := arg(req, "color_name"); c != "teal" {
				return sdkserver.ToolError(fmt.Sprintf("unknown color %q: expected one of: teal, plum", c)), nil
			}
			return sdkserver.Text("teal is blue-green"), nil
		})
		add(s, &mcp.Tool{
			Name: "get_resource", Description: "Fetch a resource by URI.", Annotations: readOnly("Get resource"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if arg(req, "uri") != "mem://docs/readme" {
				return sdkserver.ToolError("no such resource"), nil
			}
			return sdkserver.Text("readme"), nil
		})
		add(s, &mcp.Tool{
			Name: "pick_size", Description: "Pick a size.", Annotations: readOnly("Pick size"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"size_name":{"type":"string","examples":["huge","small"]}},"required":["size_name"]}`),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if arg(req, "size_name") != "small" {
				return sdkserver.ToolError("out of stock"), nil
			}
			return sdkserver.Text("small: in stock"), nil
		})
		add(s, &mcp.Tool{
			Name: "find_item", Description: "Find an item by id.", Annotations: readOnly("Find item"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if arg(req, "id") == "item-7" {
				<-ctx.Done() // the lookup of the one real item hangs
				return nil, ctx.Err()
			}
			return sdkserver.ToolError("unknown id; the only item is 'item-7'"), nil
		})
		add(s, &mcp.Tool{
			Name: "list_private", Description: "List private directories.", Annotations: readOnly("List private"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return sdkserver.Text("/srv/private"), nil
		})
		add(s, &mcp.Tool{
			Name: "list_trash", Description: "List and empty the trash.", Annotations: destructive("List trash"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return sdkserver.Text("/srv/trash/old.txt"), nil
		})
		add(s, &mcp.Tool{
			Name: "purge_doc", Description: "Delete one document.", Annotations: destructive("Purge document"),
			InputSchema: json.RawMessage(pathSchema),
		}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if p := arg(req, "path"); p != "/srv/alpha/notes.txt" {
				return sdkserver.ToolError(fmt.Sprintf(outside, p)), nil
			}
			return sdkserver.Text("purged"), nil
		})
	})
}
