package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"

	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestNoCallsStaticAudit audits the malformed-tools fixture with NoCalls:
// the fixture logs every message it reads, and none after discovery may
// reach it; the report lints every tool, lists each as not called, and is
// graded on Schema alone.
func TestNoCallsStaticAudit(t *testing.T) {
	parallel(t)
	for _, era := range []string{EraAuto, EraLegacy} {
		t.Run(era, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "methods.log")
			rep := runFixture(t, "malformed-tools", func(c *Config) {
				c.Command = append(c.Command, "-depth", "40", "-log", log)
				c.NoCalls, c.Era = true, era
			})
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			methods := strings.Fields(string(b))
			discovery := []string{"server/discover", "initialize", "notifications/initialized", "tools/list", "resources/list", "resources/templates/list", "prompts/list"}
			for _, m := range methods {
				if !slices.Contains(discovery, m) {
					t.Errorf("the server read %s: a static audit sends nothing after discovery (all: %v)", m, methods)
				}
			}
			if !slices.Contains(methods, "tools/list") {
				t.Errorf("no tools/list reached the server: %v", methods)
			}

			if !rep.Static || !rep.Config.NoCalls {
				t.Errorf("static = %v, config.noCalls = %v; want both set", rep.Static, rep.Config.NoCalls)
			}
			if len(rep.Checks) != 0 {
				t.Errorf("checks = %+v, want none", rep.Checks)
			}
			if len(rep.Tools) < 8 {
				t.Fatalf("%d tools, want every listed tool", len(rep.Tools))
			}
			for _, tl := range rep.Tools {
				if tl.Tested || tl.SkipReason != NoCallsReason || len(tl.Cases) != 0 {
					t.Errorf("tool %q: tested %v, reason %q, %d cases; want untested with %q", tl.Name, tl.Tested, tl.SkipReason, len(tl.Cases), NoCallsReason)
				}
			}
			codes := map[string]bool{}
			for _, l := range rep.Lint {
				codes[l.Code] = true
			}
			// ref_cycle comes from case generation's schema analysis,
			// which a static audit runs for every tool too.
			for _, want := range []string{"input_schema_not_object", "properties_not_object", "required_not_string_list", "tool_without_name", "huge_enum", "ref_cycle"} {
				if !codes[want] {
					t.Errorf("lint code %q missing; have %v", want, codes)
				}
			}

			schema := rep.Dimensions[score.Schema].Score
			if !rep.Graded || rep.Score == nil || schema == nil || *rep.Score != *schema {
				t.Fatalf("graded %v, score %v, schema %v: want graded on Schema alone", rep.Graded, rep.Score, schema)
			}
			if *rep.Grade != score.Letter(*schema) {
				t.Errorf("grade %s, want %s from Schema %d", *rep.Grade, score.Letter(*schema), *schema)
			}
			for k, d := range rep.Dimensions {
				if k != score.Schema && (d.Score != nil || d.Reason != "not measured: --no-calls, no call was made") {
					t.Errorf("dimension %s = %+v, want not measured: --no-calls", k, d)
				}
			}
			if len(rep.Findings) != 0 {
				t.Errorf("findings = %+v, want none", rep.Findings)
			}
			if u := score.Untested(rep); u != report.StaticLabel {
				t.Errorf("Untested = %q, want the static label", u)
			}
			res := score.Check(rep, score.Gates{FailOn: score.DefaultFailOn(), Default: true})
			if !res.Passed {
				t.Errorf("the default gate missed a static audit: %v", res.Failures)
			}
		})
	}
}

func TestNoCallsConflicts(t *testing.T) {
	parallel(t)
	for name, c := range map[string]Config{
		"era both":            {Era: EraBoth},
		"include-destructive": {IncludeDestructive: true},
		"tools":               {Tools: []string{"a*"}},
		"skip-tools":          {SkipTools: []string{"a*"}},
	} {
		t.Run(name, func(t *testing.T) {
			c.Command, c.NoCalls = []string{"server"}, true
			err := c.Validate()
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "NoCalls") {
				t.Errorf("Validate = %v, want a configuration error naming NoCalls", err)
			}
		})
	}
	ok := Config{Command: []string{"server"}, NoCalls: true, Era: EraModern, Repeat: 3}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate = %v, want nil", err)
	}
}

// TestNoCallsOverHTTP audits a Streamable HTTP server with NoCalls: every
// HTTP request it receives is recorded, and none is a tools/call or a
// protocol check's (a GET of a well-known path, a request with a broken
// envelope).
func TestNoCallsOverHTTP(t *testing.T) {
	parallel(t)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "http-static", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+msg.Method)
		mu.Unlock()
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL + "/mcp", NoCalls: true, StartupTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server.Era != EraModern || !rep.Static || len(rep.Checks) != 0 || !rep.Graded {
		t.Fatalf("era %q static %v checks %d graded %v: want a graded static audit of the modern era without checks", rep.Server.Era, rep.Static, len(rep.Checks), rep.Graded)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(seen, "POST /mcp tools/list") {
		t.Errorf("no tools/list reached the server: %q", seen)
	}
	for _, s := range seen {
		switch s {
		case "POST /mcp server/discover", "POST /mcp tools/list", "POST /mcp resources/list", "POST /mcp resources/templates/list", "POST /mcp prompts/list":
		default:
			t.Errorf("the server got %q: a static audit sends nothing after discovery (all: %q)", s, seen)
		}
	}
}
