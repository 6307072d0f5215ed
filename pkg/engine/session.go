package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// ErrConnect marks a target that could not be started or connected at all
// (exit code 3).
var ErrConnect = errors.New("cannot connect to the target")

// protocolVersion is the version mcp-fuzz asks for in initialize.
const protocolVersion = "2025-11-25"

// session is one live connection to the server: a process (stdio) or an HTTP
// session, plus what went wrong on its wire.
type session struct {
	client *rpc.Client
	proc   *stdio.Process // nil over HTTP
	init   initializeResult
	// started is set once the handshake succeeded: until then the
	// server's stray stdout lines are kept for the connect error.
	started atomic.Bool
	// era is EraModern (stateless: every request carries the _meta
	// envelope) or EraLegacy (the initialize handshake).
	era string
	// meta is the _meta envelope of modern requests for metaVersion (see
	// [session.envelope]); guarded by mu.
	meta        json.RawMessage
	metaVersion string
	// supported are the versions server/discover listed (modern era).
	supported []string
	// eraReason is why the legacy era is spoken although server/discover
	// was tried first (see [report.Server.EraReason]); already redacted.
	eraReason   string
	maxResponse int            // the response cap, for messages
	version     string         // mcp-fuzz's own version, for clientInfo
	leak        *leak.Detector // redacts the secrets from everything the server sends

	// stray collects the violations of this session that happened while
	// no tools/call was in flight (shared by the connector's sessions).
	stray *strayLog
	// observed is the connector's record of the audit's modern answers.
	observed *observed
	// listed keeps the first prompts and resource templates discovery
	// listed, for the resources and prompts checks.
	listed listedItems
	// params are the connector's x-mcp-header bindings.
	params *paramTable

	mu sync.Mutex
	// phase says when a violation happens while no tools/call is in
	// flight ([phaseBeforeInit], ...); "" while one is: then the
	// violation belongs to the call's case.
	phase           string
	violationCount  int
	violationWindow int             // violationCount when the current call began
	kept            []keptViolation // the first few of the current window
	cutScheduled    bool            // the current call will be cut short
	lateAnswers     int
	// violationSecrets names the secrets in this call's violations: they
	// are redacted from the excerpts, and each is a leak of the case.
	violationSecrets []string
	stderrPanics     int
	cancel           context.CancelFunc // ends an HTTP connection's context
	// cancelCall, while a call is in flight, cuts it short: a violation
	// usually means its real answer will never come.
	cancelCall context.CancelFunc
}

type initializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Instructions string `json:"instructions"`
}

// violationGrace is how long a call may still be answered properly after the
// server put garbage on the wire (a log line before a good answer is common).
const violationGrace = 250 * time.Millisecond

func (s *session) violate(desc string) {
	kept, found := s.excerptFound(desc, maxViolationText)
	s.record(kept, found)
}

// record keeps desc, already redacted, as a violation of the tools/call in
// flight (the first few of a call; the rest are counted), notes the
// secrets its raw text carried (found), and cuts the call short. While no
// tools/call is in flight it goes to the server's stray violations
// instead, with when it happened.
func (s *session) record(desc string, found []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == phaseClosing {
		return
	}
	if s.phase != "" {
		if s.stray != nil {
			s.stray.add(s.phase, desc)
		}
		return
	}
	for _, name := range found {
		if !slices.Contains(s.violationSecrets, name) {
			s.violationSecrets = append(s.violationSecrets, name)
		}
	}
	if s.violationCount-s.violationWindow < maxKeptViolations {
		s.kept = append(s.kept, keptViolation{s.violationCount, desc})
	}
	s.violationCount++
	if s.cancelCall != nil && !s.cutScheduled {
		s.cutScheduled = true
		time.AfterFunc(violationGrace, s.cancelCall)
	}
}

// noteLate counts an answer to a request that was already answered or
// abandoned: a defect of the server, but not of the call in flight.
func (s *session) noteLate() {
	s.mu.Lock()
	s.lateAnswers++
	s.mu.Unlock()
}

// Bounds on what a session keeps of a flood of violations: the first
// maxKeptViolations of each call are described, the rest only counted.
const (
	maxKeptViolations = 8
	maxViolationText  = 300
)

type keptViolation struct {
	index int
	desc  string
}

// excerptFound makes server text safe to keep: JSON escapes decoded (so that a
// secret written as \u0073\u006b… is seen), every secret redacted, then cut
// to n runes (after redaction, so a secret is hidden whole or not cut). It
// also names the secrets the text carried.
func (s *session) excerptFound(text string, n int) (string, []string) {
	redacted, found := s.leak.RedactText(unescapeJSON(text))
	return excerpt(redacted, n), found
}

// inCall registers cancel as the way to cut the current call short (nil when
// the call is over).
func (s *session) inCall(cancel context.CancelFunc) {
	s.mu.Lock()
	s.cancelCall = cancel
	s.cutScheduled = false
	s.mu.Unlock()
}

// setPhase says when the violations from now on happen, while no
// tools/call is in flight: see [session.phase].
func (s *session) setPhase(phase string) {
	s.mu.Lock()
	s.phase = phase
	s.mu.Unlock()
}

// beginCall starts a tools/call: the violations from now on are its case's
// (see [session.endCall]). It returns [session.marks].
func (s *session) beginCall() (violations, panics int) {
	violations, panics = s.marks()
	s.setPhase("")
	return violations, panics
}

// endCall ends the tools/call begun when n violations had been seen, and
// returns its violations (see [session.violationsSinceLocked]) and the secrets
// they carried. Atomically: a violation is either the call's or, after
// this, the server's stray one "between calls", never both or neither.
func (s *session) endCall(n int) (violations, secrets []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phase = phaseBetweenCalls
	return s.violationsSinceLocked(n), slices.Clone(s.violationSecrets)
}

// marks starts a new call's window of violations and returns how many
// violations and stderr panics were seen so far.
func (s *session) marks() (violations, panics int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violationWindow = s.violationCount
	s.violationSecrets = nil
	kept := s.kept[:0]
	for _, k := range s.kept {
		if k.index >= s.violationWindow {
			kept = append(kept, k)
		}
	}
	s.kept = kept
	return s.violationCount, s.stderrPanics
}

// violationsSinceLocked describes the violations recorded after the first
// n: the first few in full, then how many more there were. s.mu is held.
func (s *session) violationsSinceLocked(n int) []string {
	var out []string
	for _, k := range s.kept {
		if k.index >= n {
			out = append(out, k.desc)
		}
	}
	if more := s.violationCount - n - len(out); more > 0 {
		out = append(out, fmt.Sprintf("and %d more", more))
	}
	return out
}

func (s *session) noteStderr(line string) {
	if !isPanicLine(line) {
		return
	}
	s.mu.Lock()
	s.stderrPanics++
	s.mu.Unlock()
}

// pendingLine is how many bytes of an unfinished stdout line the server has
// written (0 over HTTP or between lines).
func (s *session) pendingLine() int64 {
	if s.proc == nil {
		return 0
	}
	return s.proc.PendingLine()
}

// close ends the session and, for stdio, the whole process group. What
// the server's stream still yields is not judged: cut off by the close (the
// rest of an answer that never ended, whose case said so), it is no
// violation of the server's.
func (s *session) close() {
	s.setPhase(phaseClosing)
	if s.client != nil {
		_ = s.client.Close()
	}
	if s.proc != nil {
		_ = s.proc.Stop()
	}
	if s.cancel != nil {
		s.cancel()
	}
}

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
	// Every answer is bounded by the response cap (see capStore): the
	// session's store rides on the contexts of its requests, the legacy SSE
	// stream's included.
	store := newCapStore(cn.cfg.MaxResponse)
	conn, err := t.Connect(context.WithValue(connCtx, capKey{}, &capCall{store: store}))
	if err != nil {
		cancelConn()
		return nil, err
	}
	conn = &capConn{Connection: conn, store: store}
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
	cn.header.protocolVersion.Store(headerToken(s.init.ProtocolVersion))
	cn.header.stateless.Store(s.era == EraModern)
	return s, nil
}

// handshake names the request a session that never got going was waiting
// for.
func (s *session) handshake() string {
	if s.era == EraModern || s.era == "" {
		return "server/discover"
	}
	return "initialize"
}

// start negotiates on conn as a current client does (docs/BEHAVIOUR.md#targets-and-transports): unless the
// era is legacy, server/discover first; a server that does not speak the
// stateless era gets the initialize handshake instead (unless the era is
// modern: then that is the error).
func (s *session) start(ctx context.Context, conn mcp.Connection, cfg Config) error {
	s.version, s.maxResponse = cfg.Version, cfg.MaxResponse
	s.client = rpc.NewObserved(conn, func(v rpc.Violation) {
		if v.Kind == rpc.KindLateAnswer {
			s.noteLate()
			return
		}
		s.violate(v.Kind + ": " + v.Excerpt)
	}, s.observed.sawServerMessage)
	if cfg.Era != EraLegacy {
		offer := cfg.ProtocolVersion
		if offer == "" {
			offer = ModernProtocolVersion
		}
		d, err := s.discover(ctx, offer)
		var no *errNoModern
		switch {
		case err == nil:
			s.setPhase(phaseBetweenCalls)
			s.era, s.supported = EraModern, d.supported
			return nil
		case !errors.As(err, &no):
			return fmt.Errorf("server/discover: %w", err)
		case cfg.Era == EraModern && no.overCap:
			return fmt.Errorf("--era modern: %s: raise --max-response (up to 1GiB) to audit a server whose discover answer is this large", no.why)
		case cfg.Era == EraModern:
			return fmt.Errorf("--era modern: the server does not speak the stateless %s era: %s", offer, no.why)
		case s.pendingLine() > 0:
			// stdout is in the middle of the answer (still coming, or
			// never ending): initialize's answer would be lost in it.
			return fmt.Errorf("%w%w", no, wrapQuiet{errStreamCut})
		}
		s.init = initializeResult{}
		s.eraReason = no.why
	}
	s.era = EraLegacy
	params := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcp-fuzz", "version": cfg.Version},
	}
	raw, _, err := s.callOnce(ctx, "initialize", params)
	s.setPhase(phaseBetweenCalls)
	var rpcErr *rpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return fmt.Errorf("the server answered initialize with JSON-RPC error %d: %s", rpcErr.Code, excerpt(rpcErr.Message, 200))
	case err != nil:
		return fmt.Errorf("initialize: %w", err)
	}
	if s.init, err = parseInitialize(raw); err != nil {
		// Unescaped before redaction: a secret spelled \u0074\u006f... is
		// still a secret.
		answer, _ := s.excerptFound(string(raw), 200)
		return fmt.Errorf("the server's answer to initialize is malformed: %v (answer: %s)", err, answer)
	}
	return s.client.Notify(ctx, "notifications/initialized", map[string]any{})
}

// parseInitialize reads an InitializeResult, saying which member is wrong
// when it is not one.
func parseInitialize(raw json.RawMessage) (initializeResult, error) {
	var r initializeResult
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return r, errors.New("the result is not a JSON object")
	}
	pv, ok := fields["protocolVersion"]
	if !ok {
		return r, errors.New("protocolVersion is missing")
	}
	if err := json.Unmarshal(pv, &r.ProtocolVersion); err != nil || r.ProtocolVersion == "" {
		return r, errors.New("protocolVersion is not a non-empty string")
	}
	if c, ok := fields["capabilities"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(c, &m) != nil || m == nil {
			return r, errors.New("capabilities is not an object")
		}
		r.Capabilities = c
	}
	if si, ok := fields["serverInfo"]; ok && string(si) != "null" {
		var info map[string]json.RawMessage
		if json.Unmarshal(si, &info) != nil {
			return r, errors.New("serverInfo is not an object")
		}
		if json.Unmarshal(info["name"], &r.ServerInfo.Name) != nil && info["name"] != nil {
			return r, errors.New("serverInfo.name is not a string")
		}
		if json.Unmarshal(info["version"], &r.ServerInfo.Version) != nil && info["version"] != nil {
			return r, errors.New("serverInfo.version is not a string")
		}
	}
	if in, ok := fields["instructions"]; ok && string(in) != "null" {
		if json.Unmarshal(in, &r.Instructions) != nil {
			return r, errors.New("instructions is not a string")
		}
	}
	return r, nil
}

// knownVersions are the protocol revisions whose initialize handshake
// mcp-fuzz speaks. It offers [protocolVersion]; a server may answer with
// another version it supports, and any of these is accepted.
var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// versionLint reports a protocolVersion in the initialize answer that
// mcp-fuzz did not offer and does not know. The spec lets the client
// disconnect then; mcp-fuzz goes on auditing under the rules of the version
// it offered, so the rest of the report stays useful, and says so.
func versionLint(era, answered string) []report.Lint {
	if era == EraModern || slices.Contains(knownVersions, answered) {
		return nil
	}
	return []report.Lint{{
		Code:     "unknown_protocol_version",
		Severity: report.SeverityError,
		Message:  fmt.Sprintf("initialize was answered with protocolVersion %q, which mcp-fuzz did not offer (it asked for %s) and does not know; the audit went on under %s's rules", excerpt(answered, 40), protocolVersion, protocolVersion),
		Hint:     "answer initialize with the version the client asked for when you support it, else with the latest version you support",
	}}
}

// call sends one request and returns its answer with every secret redacted
// (an error answer's message and data too), and the names of the secrets the
// answer carried. Nothing the server sends reaches the report unredacted:
// every request goes through here.
func (s *session) call(ctx context.Context, method string, params any) (json.RawMessage, []string, error) {
	if s.era == EraModern {
		return s.modernCall(ctx, method, params)
	}
	return s.callOnce(ctx, method, params)
}

// callOnce is [session.call] without the modern era's envelope and
// multi-round-trip handling: one request, one answer, redacted.
func (s *session) callOnce(ctx context.Context, method string, params any) (json.RawMessage, []string, error) {
	raw, found, _, err := s.callOnceRaw(ctx, method, params)
	return raw, found, err
}

// callOnceRaw is [session.callOnce] that also returns a successful
// answer's result as the server sent it, unredacted: for what mcp-fuzz
// sends back to the server itself (a requestState), never for a report.
func (s *session) callOnceRaw(ctx context.Context, method string, params any) (redacted json.RawMessage, found []string, raw json.RawMessage, err error) {
	watch := &capWatch{}
	if method == "tools/call" && s.era == EraModern && s.proc == nil {
		// Over Streamable HTTP (the legacy SSE transport is never modern).
		ctx = s.params.withParamHeaders(ctx, params)
	}
	raw, err = s.client.Call(context.WithValue(ctx, capWatchKey{}, watch), method, params)
	var rpcErr *rpc.Error
	var over *rpc.Oversize
	if cc, ok := s.client.Conn().(*capConn); ok && ctx.Err() != nil && errors.Is(err, ctx.Err()) && watch.id.IsValid() {
		// Timed out while an oversize answer was still coming over HTTP.
		if o := cc.store.unfinished(watch.id); o != nil {
			err = o
		}
	}
	switch {
	case errors.As(err, &over):
		o := *over
		head, found := s.excerptFound(o.Head, oversizeHead)
		o.Head = head
		return nil, found, nil, &o
	case err == nil:
		redacted, found := s.leak.RedactJSON(raw)
		return redacted, found, raw, nil
	case errors.As(err, &rpcErr):
		msg, found := s.leak.RedactText(rpcErr.Message)
		data, inData := s.leak.RedactJSON(rpcErr.Data)
		return nil, append(found, inData...), nil, &rpc.Error{Code: rpcErr.Code, Message: msg, Data: data}
	}
	return nil, nil, nil, err
}
