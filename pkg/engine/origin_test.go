package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
)

const (
	canaryBearer = "canary1-bearer-9f3a"
	canaryHeader = "canary2-apikey-7c1e"
)

// eavesdropper is server B: another origin that logs every request it gets.
type eavesdropper struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD URL" then one "Name: value" per header
	hits int
}

func newEavesdropper(t *testing.T) *eavesdropper {
	t.Helper()
	e := &eavesdropper{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.hits++
		e.seen = append(e.seen, r.Method+" "+r.URL.String())
		for name, vs := range r.Header {
			for _, v := range vs {
				e.seen = append(e.seen, name+": "+v)
			}
		}
		e.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(e.Close)
	return e
}

// assertNoSecrets fails t when B saw either canary anywhere.
func (e *eavesdropper) assertNoSecrets(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, line := range e.seen {
		if strings.Contains(line, canaryBearer) || strings.Contains(line, canaryHeader) {
			t.Errorf("the other origin received a secret: %q", line)
		}
	}
}

// assertRefused fails t unless B got nothing at all and err is a connect
// error that says what the server did (what, followed by B's origin) and why
// mcp-fuzz refused.
func (e *eavesdropper) assertRefused(t *testing.T, err error, what string) {
	t.Helper()
	e.assertNoSecrets(t)
	if n := e.requests(); n != 0 {
		t.Errorf("the other origin got %d requests, want none", n)
	}
	if !errors.Is(err, ErrConnect) {
		t.Fatalf("err = %v, want a connect error", err)
	}
	if msg := err.Error(); !strings.Contains(msg, what+e.URL) || !strings.Contains(msg, "only to the origin of --url") {
		t.Errorf("err = %q, want it to name the other origin and say why", msg)
	}
}

func (e *eavesdropper) requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hits
}

// runWithCanaries runs an audit of url with the canary bearer and header.
func runWithCanaries(t *testing.T, url string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Run(ctx, Config{
		URL:            url,
		Bearer:         canaryBearer,
		Headers:        []string{"X-Api-Key: " + canaryHeader},
		Timeout:        2 * time.Second,
		StartupTimeout: 5 * time.Second,
		Cases:          2,
	})
	return err
}

func TestCrossOriginRedirectIsRefused(t *testing.T) {
	parallel(t)
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			b := newEavesdropper(t)
			a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, b.URL+"/mcp", code)
			}))
			t.Cleanup(a.Close)

			b.assertRefused(t, runWithCanaries(t, a.URL+"/mcp"), "redirected to another origin ")
		})
	}
}

func TestSameOriginRedirectIsFollowedWithHeaders(t *testing.T) {
	parallel(t)
	newServer := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "redirect-fixture", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}
	h := mcp.NewStreamableHTTPHandler(newServer, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+canaryBearer || r.Header.Get("X-Api-Key") != canaryHeader {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL + "/old", Bearer: canaryBearer, Headers: []string{"X-Api-Key: " + canaryHeader}, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 6})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Target.Transport != "streamable-http" || rep.Summary.OK != 1 {
		t.Fatalf("transport %s, summary %+v; want the audit to run through the same-origin redirect", rep.Target.Transport, rep.Summary)
	}
}

// legacySSEServer is server A: a hand-written legacy HTTP+SSE server whose
// endpoint event names endpoint, and which rejects the Streamable POST so that
// mcp-fuzz falls back to it.
func legacySSEServer(t *testing.T, endpoint string) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: ends open streams
	return srv
}

func TestSSEEndpointOnAnotherOriginGetsNoSecrets(t *testing.T) {
	parallel(t)
	b := newEavesdropper(t)
	a := legacySSEServer(t, b.URL+"/messages?sessionid=1")

	b.assertRefused(t, runWithCanaries(t, a.URL+"/sse"), "endpoint on another origin ")
}

func TestSameOrigin(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/other?x=1", true},
		{"http://Example.COM/mcp", "HTTP://example.com:80/", true},
		{"https://example.com/mcp", "https://example.com:443/mcp", true},
		{"http://user:pw@example.com/mcp", "http://example.com/mcp", true},
		{"http://[::1]:8080/mcp", "http://[::1]:8080/x", true},
		{"http://example.com/mcp", "https://example.com/mcp", false},
		{"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3001/mcp", false},
		{"http://127.0.0.1:3000/mcp", "http://localhost:3000/mcp", false},
		{"http://example.com/mcp", "http://example.com.evil.test/mcp", false},
		{"http://example.com:80/mcp", "http://example.com:8080/mcp", false},
		{"http://[::1]:8080/mcp", "http://[::2]:8080/mcp", false},
	} {
		a, errA := url.Parse(tc.a)
		b, errB := url.Parse(tc.b)
		if errA != nil || errB != nil {
			t.Fatalf("bad test URLs: %v %v", errA, errB)
		}
		if got := session.SameOrigin(a, b); got != tc.same {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestConnectorRecordsRefusedOrigin(t *testing.T) {
	parallel(t)
	b := newEavesdropper(t)
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(a.Close)
	cfg := Config{URL: a.URL + "/mcp", Bearer: canaryBearer}.withDefaults()
	cn, err := newDialer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := cn.RefusedOrigin(); got != "" {
		t.Fatalf("refusedOrigin before connecting = %q, want none", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s, err := cn.Connect(ctx); err == nil {
		s.Close()
		t.Fatal("connect through a cross-origin redirect succeeded")
	}
	if got := cn.RefusedOrigin(); got != b.URL {
		t.Errorf("refusedOrigin = %q, want %q", got, b.URL)
	}
	b.assertNoSecrets(t)
}

// A server that starts redirecting to another origin in the middle of the
// run costs it its calls, not the user's credentials, and the report says
// what it tried.
func TestMidRunCrossOriginRedirectIsRecorded(t *testing.T) {
	parallel(t)
	b := newEavesdropper(t)
	newServer := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "turncoat", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}
	h := mcp.NewStreamableHTTPHandler(newServer, &mcp.StreamableHTTPOptions{Stateless: true})
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			http.Redirect(w, r, b.URL+"/mcp", http.StatusTemporaryRedirect)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{
		URL: a.URL + "/mcp", Bearer: canaryBearer, Headers: []string{"X-Api-Key: " + canaryHeader},
		Timeout: 2 * time.Second, StartupTimeout: 5 * time.Second, Cases: 2, MaxReconnects: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	b.assertNoSecrets(t)
	if n := b.requests(); n != 0 {
		t.Errorf("the other origin got %d requests, want none", n)
	}
	found := false
	for _, l := range rep.Lint {
		if l.Code == "cross_origin_redirect" && strings.Contains(l.Message, b.URL) {
			found = true
		}
	}
	if !found {
		t.Errorf("no cross_origin_redirect lint naming %s in %+v", b.URL, rep.Lint)
	}
}
