package engine

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
)

// lockedBuffer is a bytes.Buffer safe for the logger and the test at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStandardLogIsRedacted has a server answer with a declared
// Content-Length and more bytes after the body, which echo the bearer token
// and carry a token of its own: net/http's Transport logs them through the
// standard logger ("Unsolicited response received on idle HTTP channel
// starting with …"), which must write neither. Not parallel: it points the
// guarded logger at a buffer.
func TestStandardLogIsRedacted(t *testing.T) {
	parallel(t)
	bearer := "s3cret-" + "bearer-echo-12345"
	token := "ghp" + "_" + strings.Repeat("Tk7q", 9)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"+
					"HTTP/1.1 200 OK\r\nX-Echo: "+req.Header.Get("Authorization")+"\r\nX-Token: "+token+"\r\n\r\n")
				time.Sleep(2 * time.Second) // keep the connection open while the client looks at it
			}()
		}
	}()
	url := "http://" + ln.Addr().String() + "/mcp"

	cfg := Config{URL: url, Bearer: bearer}
	if _, err := newDialer(cfg); err != nil {
		t.Fatal(err)
	}
	if _, ok := log.Writer().(redactingLog); !ok {
		t.Fatalf("the standard logger writes to %T, not through the redacting writer", log.Writer())
	}
	var buf lockedBuffer
	stdLog.mu.Lock()
	out := stdLog.out
	stdLog.out = &buf
	stdLog.mu.Unlock()
	t.Cleanup(func() {
		stdLog.mu.Lock()
		stdLog.out = out
		stdLog.mu.Unlock()
	})

	resp, err := session.NewDialer(session.Options{URL: url, Bearer: bearer}).HTTP.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(buf.String(), "Unsolicited response") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	logged := buf.String()
	if !strings.Contains(logged, "Unsolicited response") {
		t.Fatalf("net/http logged nothing; the test no longer provokes it: %q", logged)
	}
	for _, s := range []string{bearer, token} {
		if strings.Contains(logged, s) {
			t.Fatalf("the standard logger wrote %q: %s", s, logged)
		}
	}
	if !strings.Contains(logged, "***") {
		t.Fatalf("nothing was redacted: %s", logged)
	}
}
