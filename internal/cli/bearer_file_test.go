package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBearerFileIsSent checks that the token of --bearer-file, without its
// trailing newline, is the bearer token the server receives, and that no
// output of mcp-fuzz shows it.
func TestBearerFileIsSent(t *testing.T) {
	t.Parallel()
	const token = "tok-from-file-5b2e8d"
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	app := &App{Stdout: &stdout, Stderr: &stderr, LookupEnv: func(string) (string, bool) { return "", false }, Version: "test"}
	code := app.Run(context.Background(), []string{"--startup-timeout", "10", "--url", srv.URL + "/mcp", "--bearer-file", file})
	if code != ExitConnect {
		t.Errorf("exit %d, want %d (the server refuses)\nstderr: %s", code, ExitConnect, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("the server got no request")
	}
	for _, h := range got {
		if h != "Bearer "+token {
			t.Errorf("Authorization %q, want %q", h, "Bearer "+token)
		}
	}
	if strings.Contains(stdout.String()+stderr.String(), token) {
		t.Errorf("the token is in the output:\n%s\n%s", stdout.String(), stderr.String())
	}
}
