package security

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// maxHits bounds the requests a Listener remembers.
const maxHits = 4096

// hitPath begins the path of every URL a Listener hands out; the token
// follows it.
const hitPath = "/mcp-fuzz/"

// Listener is a one-run HTTP listener on the loopback interface: a server
// that requests one of its URLs was made to (server-side request forgery).
// It answers every request with a short text and remembers which tokens
// were asked for.
type Listener struct {
	port string
	srv  *http.Server
	ln   []net.Listener
	v6   bool

	mu   sync.Mutex
	hits map[string]string // token → what asked ("GET /… from 127.0.0.1")
}

// Listen opens a listener on 127.0.0.1 (and on ::1 with the same port when
// the machine has IPv6 loopback).
func Listen() (*Listener, error) {
	l4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback listener: %w", err)
	}
	_, port, _ := net.SplitHostPort(l4.Addr().String())
	l := &Listener{port: port, ln: []net.Listener{l4}, hits: map[string]string{}}
	if l6, err := net.Listen("tcp6", net.JoinHostPort("::1", port)); err == nil {
		l.ln = append(l.ln, l6)
		l.v6 = true
	}
	l.srv = &http.Server{
		Handler:           http.HandlerFunc(l.serve),
		ReadHeaderTimeout: 5 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
	for _, ln := range l.ln {
		go func() { _ = l.srv.Serve(ln) }()
	}
	return l, nil
}

func (l *Listener) serve(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.URL.Path, hitPath)
	if ok && tok != "" && len(tok) <= 64 {
		l.mu.Lock()
		if _, seen := l.hits[tok]; !seen && len(l.hits) < maxHits {
			// The method is the client's word, up to a header's size:
			// cut, as the path (hitPath and a token of at most 64) is.
			l.hits[tok] = fmt.Sprintf("%.16s %s from %s", r.Method, r.URL.Path, r.RemoteAddr)
		}
		l.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("mcp-fuzz listener\n"))
}

// Port is the listener's port.
func (l *Listener) Port() string { return l.port }

// IPv6 reports whether the listener also listens on ::1.
func (l *Listener) IPv6() bool { return l.v6 }

// URL is the listener's URL for token, with host spelled as given (an
// address, a name, or a bracketed IPv6 address).
func (l *Listener) URL(host, token string) string {
	return "http://" + host + ":" + l.port + hitPath + token
}

// Hit says what requested token's URL, or "" when nothing did.
func (l *Listener) Hit(token string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hits[token]
}

// Close stops the listener.
func (l *Listener) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := l.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = l.srv.Close()
	}
	return err
}
