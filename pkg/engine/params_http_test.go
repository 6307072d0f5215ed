package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// regionalSchema has parameter headers on a string and an integer.
const regionalSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"zone":{"type":"integer","x-mcp-header":"Zone"},
	"note":{"type":"string"}},"required":["region","zone"]}`

// invalidHeaderTools are listed next to go-sdk's own tools: go-sdk refuses
// to serve them itself (AddTool panics), so the test server adds them to
// its tools/list answer.
var invalidHeaderTools = []string{
	`{"name":"bad_number","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"price":{"type":"number","x-mcp-header":"Price"}}}}`,
	`{"name":"bad_name","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Evil\r\nX-Injected: 1"},"b":{"type":"string","x-mcp-header":"has space"}}}}`,
}

// paramRequest is what the test server saw of one tools/call.
type paramRequest struct {
	name           string
	body           []byte
	region, zone   string
	injected, evil bool
}

// paramServer serves, statelessly, a tool "regional" with parameter
// headers (its handler answers -32603 to arguments of the wrong type, so
// bad-input cases that reach it become findings), a tool with an
// x-mcp-header under items (which go-sdk serves), and the
// invalidHeaderTools; it records every tools/call.
func paramServer(t *testing.T) (*httptest.Server, func() []paramRequest) {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "params", Version: "1.0.0"}, nil)
		s.AddTool(&mcp.Tool{Name: "regional", Description: "Looks a region up.", InputSchema: json.RawMessage(regionalSchema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args struct {
					Region string `json:"region"`
					Zone   int64  `json:"zone"`
				}
				if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
					return nil, &jsonrpc.Error{Code: -32603, Message: "boom: " + err.Error()}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Region + " " + strconv.FormatInt(args.Zone, 10)}}}, nil
			})
		s.AddTool(&mcp.Tool{Name: "bad_items", Description: "Has a header under items.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"list":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called"}}}, nil
			})
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	var mu sync.Mutex
	var seen []paramRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if r.Header.Get("Mcp-Method") == "tools/call" {
				p := paramRequest{name: r.Header.Get("Mcp-Name"), body: b, region: r.Header.Get("Mcp-Param-Region"), zone: r.Header.Get("Mcp-Param-Zone")}
				for k, vs := range r.Header {
					p.injected = p.injected || strings.EqualFold(k, "X-Injected")
					p.evil = p.evil || strings.Contains(strings.ToLower(k), "evil") || strings.Contains(strings.Join(vs, ","), "Injected")
				}
				mu.Lock()
				seen = append(seen, p)
				mu.Unlock()
			}
			if r.Header.Get("Mcp-Method") == "tools/list" {
				addTools(w, r, h)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []paramRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]paramRequest(nil), seen...)
	}
}

// addTools serves r with h and adds invalidHeaderTools to the listing.
func addTools(w http.ResponseWriter, r *http.Request, h http.Handler) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	var msg map[string]any
	if json.Unmarshal(rec.Body.Bytes(), &msg) == nil {
		if res, ok := msg["result"].(map[string]any); ok {
			tools, _ := res["tools"].([]any)
			for _, raw := range invalidHeaderTools {
				var tl any
				_ = json.Unmarshal([]byte(raw), &tl)
				tools = append(tools, tl)
			}
			res["tools"] = tools
		}
	}
	b, _ := json.Marshal(msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	w.Write(b)
}

// TestParamHeadersGoSDK: over Streamable HTTP in the modern era, each
// tools/call carries the Mcp-Param headers of its arguments, which go-sdk's
// header check accepts; the header-param-mismatch check passes against
// go-sdk; tools with invalid annotations are skipped with a lint, and no
// hostile header name reaches a request or a reproducer; a finding's
// reproducer sends the same headers and works as printed.
func TestParamHeadersGoSDK(t *testing.T) {
	parallel(t)
	srv, seen := paramServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 40,
		Examples: map[string]map[string]any{"regional": {"region": "zürich", "zone": 7}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server.Era != EraModern {
		t.Fatalf("era %q", rep.Server.Era)
	}
	if c := validCase(t, rep, "regional"); c.Verdict != report.OK {
		t.Fatalf("valid call: %s %s", c.Verdict, c.Detail)
	}
	// Every case whose header arguments have a header form got past the
	// server's header check: no -32020 for them.
	for _, tl := range rep.Tools {
		if tl.Name != "regional" {
			continue
		}
		for _, c := range tl.Cases {
			h := mcpheader.Headers(mustParams(t)["regional"], c.Arguments)
			if c.ErrorCode != nil && *c.ErrorCode == oracle.CodeHeaderMismatch && hasForms(c.Arguments, h) {
				t.Errorf("case %s (%s) refused as a header mismatch: %s", c.ID, c.Arguments, c.Detail)
			}
		}
	}
	wantRegion := "=?base64?" + base64.StdEncoding.EncodeToString([]byte("zürich")) + "?="
	sawValid := false
	for _, r := range seen() {
		if r.injected || r.evil {
			t.Errorf("a hostile header name reached a request: %s", r.body)
		}
		if strings.HasPrefix(r.name, "bad_") {
			t.Errorf("invalid tool %s called", r.name)
		}
		if r.name == "regional" && strings.Contains(string(r.body), `"region":"zürich","zone":7`) && r.region == wantRegion && r.zone == "7" {
			sawValid = true
		}
	}
	if !sawValid {
		t.Errorf("no tools/call with Mcp-Param-Region %s and Mcp-Param-Zone 7", wantRegion)
	}
	checks := map[string]report.Check{}
	for _, c := range rep.Checks {
		checks[c.ID] = c
	}
	if c := checks["envelope/header-param-mismatch"]; c.Status != report.CheckPass {
		t.Errorf("header-param-mismatch: %+v", c)
	}
	if c := checks["envelope/header-name-mismatch"]; c.Status != report.CheckPass {
		t.Errorf("header-name-mismatch: %+v", c)
	}
	// The checks' reproducers send the call's right Mcp-Param headers but
	// the broken one, and get the check's answer.
	shown := Config{URL: srv.URL, params: mustParams(t)}
	for id, want := range map[string]string{
		"envelope/header-param-mismatch": "Mcp-Param-Region header value 'mcp-fuzz-other-value' does not match",
		"envelope/header-name-mismatch":  "Mcp-Name header value 'mcp_fuzz_other_tool' does not match",
	} {
		line := repro.Check(rep, reproTarget(shown), checks[id]).Shell
		if out := runShell(t, line); !strings.Contains(out, "-32020") || !strings.Contains(out, want) {
			t.Errorf("%s: reproducer %s printed %q", id, line, out)
		}
	}
	// The invalid definitions: skipped, each with an error lint.
	wantLint := map[string]string{
		"bad_items":  "/inputSchema/properties/list/items/x-mcp-header",
		"bad_number": "/inputSchema/properties/price/x-mcp-header",
		"bad_name":   "/inputSchema/properties/a/x-mcp-header",
	}
	for _, tl := range rep.Tools {
		if _, ok := wantLint[tl.Name]; ok && (tl.Tested || !strings.Contains(tl.SkipReason, "invalid tool definition")) {
			t.Errorf("%s: tested %v, skip reason %q", tl.Name, tl.Tested, tl.SkipReason)
		}
	}
	for _, l := range rep.Lint {
		if l.Code != "invalid_mcp_header" {
			continue
		}
		if strings.ContainsAny(l.Message, "\r\n") {
			t.Errorf("lint message carries a raw CR or LF: %q", l.Message)
		}
		if l.Severity == report.SeverityError && wantLint[l.Tool] == l.Pointer {
			delete(wantLint, l.Tool)
		}
	}
	if len(wantLint) > 0 {
		t.Errorf("no invalid_mcp_header lint for %v in %+v", wantLint, rep.Lint)
	}
	// A finding's reproducer (a bad-input case the handler fails on) sends
	// the case's Mcp-Param headers and gets the same answer.
	ran := false
	for _, f := range rep.Findings {
		if strings.Contains(f.Reproducer.Shell, "Evil") || strings.Contains(f.Reproducer.Shell, "X-Injected") {
			t.Errorf("hostile header name in a reproducer: %s", f.Reproducer.Shell)
		}
		if f.Tool != "regional" || f.Code != report.CrashInternalError && !strings.Contains(f.Message, "-32603") || ran {
			continue
		}
		if !strings.Contains(f.Reproducer.Shell, "Mcp-Param-Region: ") {
			t.Errorf("reproducer without Mcp-Param-Region: %s", f.Reproducer.Shell)
			continue
		}
		ran = true
		if out := runShell(t, f.Reproducer.Shell); !strings.Contains(out, "-32603") {
			t.Errorf("reproducer %s printed %q", f.Reproducer.Shell, out)
		}
	}
	if !ran {
		t.Errorf("no -32603 finding of regional to reproduce: %+v", rep.Findings)
	}
}

// mustParams is the binding table of regionalSchema.
func mustParams(t *testing.T) map[string][]mcpheader.Binding {
	b, problems := mcpheader.Parse(json.RawMessage(regionalSchema))
	if len(problems) > 0 || len(b) != 2 {
		t.Fatalf("regionalSchema: %v %v", b, problems)
	}
	return map[string][]mcpheader.Binding{"regional": b}
}

// hasForms reports whether every header argument present in args got its
// header in h (none of them lacks a header form).
func hasForms(args json.RawMessage, h http.Header) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	for k, hk := range map[string]string{"region": "Mcp-Param-Region", "zone": "Mcp-Param-Zone"} {
		if v, ok := m[k]; ok && string(v) != "null" && h.Get(hk) == "" {
			return false
		}
	}
	return true
}
