package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestOversizeDiscoverFallsBack: a server whose answer to server/discover
// is over --max-response is no reason to give up. Like a malformed answer,
// it is followed by initialize (over a fresh process when the answer never
// ended, leaving stdout in the middle of a line); the report says why the
// legacy era was spoken, and the answer is no finding of the server's.
func TestOversizeDiscoverFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		cap        int
		want       string
		// maxAlloc bounds what the run may allocate (0: unchecked): far
		// less than reading the answer whole would.
		maxAlloc uint64
	}{
		{"ended", "", rpc.DefaultMaxResponse, "the server's answer to server/discover was 5242", 0},
		{"ended, small cap", "", 64 << 10, "the server's answer to server/discover was 5242", 8 << 20},
		{"never ends", "never-ends", 64 << 10, "the server's answer to server/discover was still unfinished after 1048", 8 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			rep := runFixture(t, "hostile-huge-discover", func(c *Config) {
				c.Env = []string{"HUGE_DISCOVER=" + tc.mode}
				c.MaxResponse = tc.cap
				c.StartupTimeout = 6 * time.Second // the unfinished probe waits half of it
			})
			runtime.ReadMemStats(&after)
			if rep.Server.Era != EraLegacy || rep.Server.ProtocolVersion != session.LegacyVersion {
				t.Fatalf("server %+v: want the legacy era", rep.Server)
			}
			if !strings.Contains(rep.Server.EraReason, tc.want) || !strings.Contains(rep.Server.EraReason, "--max-response") {
				t.Errorf("eraReason %q: want %q and --max-response named", rep.Server.EraReason, tc.want)
			}
			if v := validCase(t, rep, "echo").Verdict; v != report.OK {
				t.Errorf("echo valid call %s", v)
			}
			if f := failures(rep); len(f) > 0 {
				t.Errorf("the oversize probe answer became findings: %+v", f)
			}
			if rep.ServerViolationCount != 0 {
				t.Errorf("server violations %+v: the probe answer counted against the server", rep.ServerViolations)
			}
			for _, l := range rep.Lint {
				if l.Code == "late_answers" {
					t.Errorf("lint %s: %s", l.Code, l.Message)
				}
			}
			if grew := after.TotalAlloc - before.TotalAlloc; tc.maxAlloc > 0 && grew > tc.maxAlloc {
				t.Errorf("the run allocated %d MiB with a %d KiB cap: the discover answer was held", grew>>20, tc.cap>>10)
			}
		})
	}
}

// TestOversizeDiscoverModern: with --era modern forced, an oversize answer
// to server/discover stays a connect error, which names --max-response.
func TestOversizeDiscoverModern(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	cfg := Config{Command: []string{fixture.Build(t, "hostile-huge-discover")}, Era: EraModern, StartupTimeout: 20 * time.Second, Version: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Run(ctx, cfg)
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "--max-response") {
		t.Fatalf("Run(--era modern, hostile-huge-discover) = %v; want a connect error naming --max-response", err)
	}
	assertNoChildren(t)
}

// hugeDiscoverServer is a 2025-era Streamable HTTP server (the go-sdk's,
// with sessions) whose answer to server/discover is 5 MiB of JSON, or with
// neverEnds 1 MiB that never ends (until the client goes away).
func hugeDiscoverServer(t *testing.T, neverEnds bool) *httptest.Server {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "huge-discover", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			_ = json.Unmarshal(b, &req)
		}
		if req.Method != "server/discover" {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"instructions":"`, req.ID)
		chunk := bytes.Repeat([]byte("d"), 64<<10)
		n := 80 // 5 MiB
		if neverEnds {
			n = 16
		}
		for range n {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		if neverEnds {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		io.WriteString(w, `"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOversizeDiscoverHTTP: over Streamable HTTP too, an answer to
// server/discover over --max-response is followed by initialize, and the
// report says why.
func TestOversizeDiscoverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		neverEnds bool
		want      string
	}{
		{"ended", false, "the server's answer to server/discover was 5242"},
		{"never ends", true, "the server's answer to server/discover was still unfinished after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hugeDiscoverServer(t, tc.neverEnds)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep, err := Run(ctx, Config{URL: srv.URL, MaxResponse: 64 << 10, Timeout: 5 * time.Second, StartupTimeout: 6 * time.Second, Cases: 6})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Server.Era != EraLegacy || rep.Target.Transport != "streamable-http" || rep.Summary.OK != 1 {
				t.Fatalf("era %q, transport %s, summary %+v", rep.Server.Era, rep.Target.Transport, rep.Summary)
			}
			if !strings.Contains(rep.Server.EraReason, tc.want) || !strings.Contains(rep.Server.EraReason, "--max-response 65536") {
				t.Errorf("eraReason %q: want %q and --max-response named", rep.Server.EraReason, tc.want)
			}
			if f := failures(rep); len(f) > 0 || rep.ServerViolationCount != 0 {
				t.Errorf("the oversize probe answer counted against the server: %+v, %+v", f, rep.ServerViolations)
			}
			// A 5 MiB answer held whole would cost more than this alone.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("the run allocated %d MiB with a 64 KiB cap: the discover answer was held", grew>>20)
			}
		})
	}
	srv := hugeDiscoverServer(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Run(ctx, Config{URL: srv.URL, Era: EraModern, MaxResponse: 64 << 10, Timeout: 5 * time.Second, StartupTimeout: 6 * time.Second})
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "--max-response") {
		t.Fatalf("Run(--era modern) = %v; want a connect error naming --max-response", err)
	}
}
