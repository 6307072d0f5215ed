package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcap"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options say how to reach one target and speak to it. The engine builds
// them from its configuration: everything here is already validated.
type Options struct {
	// Command and its working directory Cwd start a stdio server, in Box
	// (nil: no box) with the environment Env; empty Command means URL.
	Command []string
	Cwd     string
	Env     []string
	Box     *box.Plan
	// URL is the HTTP target; Headers (already parsed) and Bearer go with
	// every request to it.
	URL     string
	Headers http.Header
	Bearer  string
	// Era is EraAuto (or ""), EraModern or EraLegacy; ProtocolVersion is
	// the version offered in server/discover ("" for
	// [ModernProtocolVersion]).
	Era             string
	ProtocolVersion string
	// MaxResponse caps every message from the server, in bytes.
	MaxResponse int
	// StartupTimeout is the startup budget a failed start is told against.
	StartupTimeout time.Duration
	// Version is mcp-fuzz's own version, for clientInfo.
	Version string
	// Leak holds the run's secrets: every session redacts them from what
	// the server sends.
	Leak *leak.Detector
}

// Dialer opens sessions to one target. It remembers which HTTP transport
// and era worked so that reconnects do not probe again.
type Dialer struct {
	opts      Options
	Leak      *leak.Detector // the run's secrets, for every session
	Transport string         // "stdio", "streamable-http", "sse"
	HTTP      *http.Client
	Header    *HeaderTransport
	// Stray collects the violations of every session outside tools/call.
	Stray *StrayLog
	// Observed collects what the protocol checks need of the audit.
	Observed *Observed
	// HandshakeRequired says why the audit fell back to initialize after
	// the server answered server/discover.
	HandshakeRequired string
	// Params are the x-mcp-header bindings of the listed tools.
	Params *ParamTable
}

// newSession is a session not yet connected: what the server sends from
// now on is "before initialize".
func (cn *Dialer) newSession() *Session {
	return &Session{leak: cn.Leak, stray: cn.Stray, observed: cn.Observed, Params: cn.Params, phase: PhaseBeforeInit}
}

// NewDialer returns the dialer of the target opts describe.
func NewDialer(opts Options) *Dialer {
	cn := &Dialer{opts: opts, Leak: opts.Leak, Stray: &StrayLog{}, Observed: &Observed{leak: opts.Leak}, Params: &ParamTable{}}
	if len(opts.Command) > 0 {
		cn.Transport = "stdio"
		return cn
	}
	header := newHeaderTransport(opts.URL, opts.Headers, opts.Bearer)
	header.maxResponse = opts.MaxResponse
	cn.Header, cn.HTTP = header, header.client()
	return cn
}

// Era is the era the dialer's sessions speak: the configured one, or,
// once a session negotiated, that session's.
func (cn *Dialer) Era() string { return cn.opts.Era }

// RequireHandshake makes the dialer's later sessions speak the legacy era,
// saying why (see [Dialer.HandshakeRequired]).
func (cn *Dialer) RequireHandshake(why string) {
	cn.opts.Era, cn.HandshakeRequired = EraLegacy, why
}

// Connect starts a fresh session and initializes it within ctx.
func (cn *Dialer) Connect(ctx context.Context) (*Session, error) {
	if cn.Transport == "stdio" {
		return cn.connectStdio(ctx)
	}
	if cn.Transport != "" {
		return cn.connectHTTP(ctx, cn.Transport)
	}
	s, err := cn.connectHTTP(ctx, "streamable-http")
	if err == nil {
		cn.Transport = "streamable-http"
		return s, nil
	}
	// Backwards compatibility: a 4xx on the Streamable POST means the server
	// may speak the legacy HTTP+SSE transport.
	if st := cn.Header.lastPostStatus.Load(); st >= 400 && st < 500 && ctx.Err() == nil {
		s, sseErr := cn.connectHTTP(ctx, "sse")
		if sseErr == nil {
			cn.Transport = "sse"
			return s, nil
		}
		return nil, fmt.Errorf("streamable HTTP: %v; legacy SSE: %v", err, sseErr)
	}
	return nil, err
}

func (cn *Dialer) connectStdio(ctx context.Context) (*Session, error) {
	s, err := cn.startStdio(ctx, cn.opts)
	if err != nil && (cn.opts.Era == EraAuto || cn.opts.Era == "") && (errors.Is(err, errDiedOnDiscover) || errors.Is(err, errStreamCut)) && ctx.Err() == nil {
		// A current client falls back to initialize on any failure of
		// server/discover: a legacy server that dies of the unknown
		// method, or leaves its stdout in the middle of an answer, is
		// started again and spoken to in its own era.
		why := textcut.Excerpt(err.Error(), maxViolationText) // the stderr hint is redacted
		if no := (*errNoModern)(nil); errors.As(err, &no) {
			why = no.why
		}
		opts := cn.opts
		opts.Era = EraLegacy
		if s, err = cn.startStdio(ctx, opts); err == nil {
			s.EraReason = why
		}
	}
	return s, err
}

var (
	// errDiedOnDiscover marks a server that exited, or closed its stdout,
	// without answering server/discover.
	errDiedOnDiscover = errors.New("the server exited without answering server/discover")
	// errStreamCut marks a server whose stdout was left in the middle of
	// its answer to server/discover: nothing more can be read from it.
	errStreamCut = errors.New("the server's stdout was left in the middle of its answer to server/discover")
)

// startStdio starts the server process and negotiates in opts.Era.
func (cn *Dialer) startStdio(ctx context.Context, opts Options) (*Session, error) {
	s := cn.newSession()
	log := &startupLog{}
	proc, err := stdio.Start(stdio.Config{
		Path: cn.opts.Command[0],
		Args: cn.opts.Command[1:],
		Env:  cn.opts.Env,
		Dir:  cn.opts.Cwd,
		// Answers to oversize cases can be tens of MiB of legitimate JSON
		// (100,000 file errors from server-filesystem are over 16 MiB): a
		// larger line is not held, but its call still gets an honest
		// rpc.Oversize.
		MaxLine: cn.opts.MaxResponse,
		OnViolation: func(v stdio.Violation) {
			// Scanned and redacted before %q escapes it: a secret the
			// server wrote as \u escapes must still be recognised.
			kept, found := s.excerptFound(v.Excerpt, maxViolationText)
			if !s.started.Load() {
				log.add(kept) // quoted if the start fails
			}
			s.record(fmt.Sprintf("%s on stdout: %q", strings.ReplaceAll(v.Kind, "_", " "), kept), found)
		},
		OnStderr: s.noteStderr,
		Box:      cn.opts.Box,
	})
	if err != nil {
		return nil, err
	}
	s.Proc = proc
	if err := s.start(ctx, proc.Connection(), opts); err != nil {
		handshake := s.handshake()
		s.Close()
		switch {
		case errors.Is(err, rpc.ErrClosed) || ctx.Err() != nil:
			// It died (or closed stdout, or never answered) without
			// answering: say which, honestly, with what it wrote; its
			// stderr tail usually says why.
			var mark error
			if s.Era == "" && ctx.Err() == nil {
				mark = errDiedOnDiscover
			}
			msg, timedOut := startupFailure(ctx, handshake, cn.opts.StartupTimeout, proc.ExitStatus(), proc.Signalled(), proc.Stderr(), log, s.leak.Redact)
			if timedOut != nil {
				mark = timedOut
			}
			err = fmt.Errorf("%s%w", msg, wrapQuiet{mark})
		default:
			err = fmt.Errorf("%w%s", err, startupOutput(proc.Stderr(), log, s.leak.Redact))
		}
		return nil, err
	}
	s.started.Store(true)
	cn.remember(s)
	return s, nil
}

// remember keeps the era and version a session negotiated, so that the
// run's later sessions (reconnects, parallel workers) do not probe again.
func (cn *Dialer) remember(s *Session) {
	if cn.opts.Era == EraAuto || cn.opts.Era == "" {
		cn.opts.Era = s.Era
		if s.Era == EraModern {
			cn.opts.ProtocolVersion = s.Init.ProtocolVersion
		}
	}
}

// wrapQuiet wraps an error for errors.Is without adding to the message.
type wrapQuiet struct{ err error }

func (w wrapQuiet) Error() string { return "" }

func (w wrapQuiet) Unwrap() error { return w.err }

// connectHTTP connects over transport in the run's era. Over Streamable
// HTTP in the auto era, a server/discover that fails in any way (a
// JSON-RPC error, an HTTP 4xx of a server that wants initialize first, a
// broken answer) is followed, as a current client does, by a fresh
// connection with the initialize handshake.
func (cn *Dialer) connectHTTP(ctx context.Context, transport string) (*Session, error) {
	auto := cn.opts.Era == EraAuto || cn.opts.Era == ""
	if transport == "sse" && cn.opts.Era == EraModern {
		return nil, errors.New("--era modern: the legacy HTTP+SSE transport has no stateless era")
	}
	if !auto || transport != "streamable-http" {
		s, err := cn.connectHTTPEra(ctx, transport, cn.opts.Era)
		if err == nil {
			cn.remember(s)
		}
		return s, err
	}
	s, err := cn.connectHTTPEra(ctx, transport, EraAuto)
	if err == nil {
		cn.remember(s)
		return s, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	cn.Header.lastPostStatus.Store(0)
	// Redacted like the connect error the terminal shows, the URL's
	// credentials too: this one goes into the report.
	why := textcut.Excerpt(cn.Leak.Redact(strings.ReplaceAll(err.Error(), cn.opts.URL, secret.RedactURL(cn.opts.URL))), maxViolationText)
	s, err = cn.connectHTTPEra(ctx, transport, EraLegacy)
	if err == nil {
		s.EraReason = why
		cn.remember(s)
	}
	return s, err
}

func (cn *Dialer) connectHTTPEra(ctx context.Context, transport, era string) (*Session, error) {
	cn.Header.protocolVersion.Store("")
	cn.Header.stateless.Store(false)
	var t mcp.Transport
	if transport == "sse" {
		t = &mcp.SSEClientTransport{Endpoint: cn.opts.URL, HTTPClient: cn.HTTP}
	} else {
		t = &mcp.StreamableClientTransport{Endpoint: cn.opts.URL, HTTPClient: cn.HTTP, MaxRetries: -1, DisableStandaloneSSE: true}
	}
	// The connection outlives ctx (the startup deadline): the legacy SSE
	// stream is tied to the context it was opened with. Until the handshake
	// is done, ctx still bounds it.
	connCtx, cancelConn := context.WithCancel(context.WithoutCancel(ctx))
	detach := context.AfterFunc(ctx, cancelConn)
	// Every answer is bounded by the response cap (see [httpcap.Store]):
	// the session's store rides on the contexts of its requests, the
	// legacy SSE stream's included.
	store := httpcap.NewStore(cn.opts.MaxResponse)
	conn, err := t.Connect(httpcap.WithStore(connCtx, store))
	if err != nil {
		cancelConn()
		return nil, err
	}
	conn = httpcap.NewConn(conn, store)
	s := cn.newSession()
	s.cancel = cancelConn
	opts := cn.opts
	opts.Era = era
	if transport == "sse" {
		// The legacy HTTP+SSE transport belongs to the 2024 revision.
		opts.Era = EraLegacy
	}
	if err := s.start(ctx, conn, opts); err != nil {
		s.Close()
		return nil, err
	}
	detach()
	// Every later POST says the version; in the modern era the SDK's
	// transport also copies it from each request's _meta (the same value)
	// and adds Mcp-Method and Mcp-Name; this covers notifications too.
	cn.Header.protocolVersion.Store(mcpheader.Token(s.Init.ProtocolVersion))
	cn.Header.stateless.Store(s.Era == EraModern)
	return s, nil
}
