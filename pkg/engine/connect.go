package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcap"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrConnect marks a target that could not be started or connected at all
// (exit code 3).
var ErrConnect = errors.New("cannot connect to the target")

// connector opens sessions to one target. It remembers which HTTP transport
// worked so reconnects do not probe again.
type connector struct {
	cfg       Config
	leak      *leak.Detector // the run's secrets, for every session
	env       []string
	transport string // "stdio", "streamable-http", "sse"
	http      *http.Client
	header    *headerTransport
	// stray collects the violations of every session outside tools/call.
	stray *strayLog
	// observed collects what the protocol checks need of the audit.
	observed *observed
	// handshakeRequired says why the audit fell back to initialize after
	// the server answered server/discover (see [handshakeRequired]).
	handshakeRequired string
	// params are the x-mcp-header bindings of the listed tools.
	params *paramTable
	// box is the box every server of the run is started in (stdio).
	box *box.Plan
}

// newSession is a session not yet connected: what the server sends from
// now on is "before initialize".
func (cn *connector) newSession() *session {
	return &session{leak: cn.leak, stray: cn.stray, observed: cn.observed, params: cn.params, phase: phaseBeforeInit}
}

func newConnector(cfg Config) (*connector, error) {
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	detector := leak.NewDetector(cfg.secrets())
	guardLog(detector)
	cn := &connector{cfg: cfg, leak: detector, stray: &strayLog{}, observed: &observed{leak: detector}, params: &paramTable{}}
	if len(cfg.Command) > 0 {
		env, err := stdio.MinimalEnv(cfg.LookupEnv, cfg.Env, cfg.PassEnv)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		cn.box = cfg.boxes.get(cfg, env)
		cn.env = withHome(env, cn.box)
		cn.transport = "stdio"
		return cn, nil
	}
	header, err := newHeaderTransport(cfg.URL, cfg.Headers, cfg.Bearer)
	if err != nil {
		return nil, err
	}
	header.maxResponse = cfg.MaxResponse
	cn.header, cn.http = header, header.client()
	return cn, nil
}

// connect starts a fresh session and initializes it within ctx.
func (cn *connector) connect(ctx context.Context) (*session, error) {
	if cn.transport == "stdio" {
		return cn.connectStdio(ctx)
	}
	if cn.transport != "" {
		return cn.connectHTTP(ctx, cn.transport)
	}
	s, err := cn.connectHTTP(ctx, "streamable-http")
	if err == nil {
		cn.transport = "streamable-http"
		return s, nil
	}
	// Backwards compatibility: a 4xx on the Streamable POST means the server
	// may speak the legacy HTTP+SSE transport.
	if st := cn.header.lastPostStatus.Load(); st >= 400 && st < 500 && ctx.Err() == nil {
		s, sseErr := cn.connectHTTP(ctx, "sse")
		if sseErr == nil {
			cn.transport = "sse"
			return s, nil
		}
		return nil, fmt.Errorf("streamable HTTP: %v; legacy SSE: %v", err, sseErr)
	}
	return nil, err
}

func (cn *connector) connectStdio(ctx context.Context) (*session, error) {
	s, err := cn.startStdio(ctx, cn.cfg)
	if err != nil && (cn.cfg.Era == EraAuto || cn.cfg.Era == "") && (errors.Is(err, errDiedOnDiscover) || errors.Is(err, errStreamCut)) && ctx.Err() == nil {
		// A current client falls back to initialize on any failure of
		// server/discover: a legacy server that dies of the unknown
		// method, or leaves its stdout in the middle of an answer, is
		// started again and spoken to in its own era.
		why := excerpt(err.Error(), maxViolationText) // the stderr hint is redacted
		if no := (*errNoModern)(nil); errors.As(err, &no) {
			why = no.why
		}
		cfg := cn.cfg
		cfg.Era = EraLegacy
		if s, err = cn.startStdio(ctx, cfg); err == nil {
			s.eraReason = why
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

// startStdio starts the server process and negotiates in cfg's era.
func (cn *connector) startStdio(ctx context.Context, cfg Config) (*session, error) {
	s := cn.newSession()
	log := &startupLog{}
	proc, err := stdio.Start(stdio.Config{
		Path: cn.cfg.Command[0],
		Args: cn.cfg.Command[1:],
		Env:  cn.env,
		Dir:  cn.cfg.Cwd,
		// Answers to oversize cases can be tens of MiB of legitimate JSON
		// (100,000 file errors from server-filesystem are over 16 MiB): a
		// larger line is not held, but its call still gets an honest
		// rpc.Oversize.
		MaxLine: cn.cfg.MaxResponse,
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
		Box:      cn.box,
	})
	if err != nil {
		return nil, err
	}
	s.proc = proc
	if err := s.start(ctx, proc.Connection(), cfg); err != nil {
		handshake := s.handshake()
		s.close()
		switch {
		case errors.Is(err, rpc.ErrClosed) || ctx.Err() != nil:
			// It died (or closed stdout, or never answered) without
			// answering: say which, honestly, with what it wrote; its
			// stderr tail usually says why.
			var mark error
			if s.era == "" && ctx.Err() == nil {
				mark = errDiedOnDiscover
			}
			msg, timedOut := startupFailure(ctx, handshake, cn.cfg.StartupTimeout, proc.ExitStatus(), proc.Signalled(), proc.Stderr(), log, s.leak.Redact)
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
func (cn *connector) remember(s *session) {
	if cn.cfg.Era == EraAuto || cn.cfg.Era == "" {
		cn.cfg.Era = s.era
		if s.era == EraModern {
			cn.cfg.ProtocolVersion = s.init.ProtocolVersion
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
func (cn *connector) connectHTTP(ctx context.Context, transport string) (*session, error) {
	auto := cn.cfg.Era == EraAuto || cn.cfg.Era == ""
	if transport == "sse" && cn.cfg.Era == EraModern {
		return nil, errors.New("--era modern: the legacy HTTP+SSE transport has no stateless era")
	}
	if !auto || transport != "streamable-http" {
		s, err := cn.connectHTTPEra(ctx, transport, cn.cfg.Era)
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
	cn.header.lastPostStatus.Store(0)
	// Redacted like the connect error the terminal shows, the URL's
	// credentials too: this one goes into the report.
	why := excerpt(cn.leak.Redact(strings.ReplaceAll(err.Error(), cn.cfg.URL, redactURL(cn.cfg.URL))), maxViolationText)
	s, err = cn.connectHTTPEra(ctx, transport, EraLegacy)
	if err == nil {
		s.eraReason = why
		cn.remember(s)
	}
	return s, err
}

func (cn *connector) connectHTTPEra(ctx context.Context, transport, era string) (*session, error) {
	cn.header.protocolVersion.Store("")
	cn.header.stateless.Store(false)
	var t mcp.Transport
	if transport == "sse" {
		t = &mcp.SSEClientTransport{Endpoint: cn.cfg.URL, HTTPClient: cn.http}
	} else {
		t = &mcp.StreamableClientTransport{Endpoint: cn.cfg.URL, HTTPClient: cn.http, MaxRetries: -1, DisableStandaloneSSE: true}
	}
	// The connection outlives ctx (the startup deadline): the legacy SSE
	// stream is tied to the context it was opened with. Until the handshake
	// is done, ctx still bounds it.
	connCtx, cancelConn := context.WithCancel(context.WithoutCancel(ctx))
	detach := context.AfterFunc(ctx, cancelConn)
	// Every answer is bounded by the response cap (see [httpcap.Store]):
	// the session's store rides on the contexts of its requests, the
	// legacy SSE stream's included.
	store := httpcap.NewStore(cn.cfg.MaxResponse)
	conn, err := t.Connect(httpcap.WithStore(connCtx, store))
	if err != nil {
		cancelConn()
		return nil, err
	}
	conn = httpcap.NewConn(conn, store)
	s := cn.newSession()
	s.cancel = cancelConn
	cfg := cn.cfg
	cfg.Era = era
	if transport == "sse" {
		// The legacy HTTP+SSE transport belongs to the 2024 revision.
		cfg.Era = EraLegacy
	}
	if err := s.start(ctx, conn, cfg); err != nil {
		s.close()
		return nil, err
	}
	detach()
	// Every later POST says the version; in the modern era the SDK's
	// transport also copies it from each request's _meta (the same value)
	// and adds Mcp-Method and Mcp-Name; this covers notifications too.
	cn.header.protocolVersion.Store(repro.HeaderToken(s.init.ProtocolVersion))
	cn.header.stateless.Store(s.era == EraModern)
	return s, nil
}
