package engine

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Protocol eras (docs/BEHAVIOUR.md#targets-and-transports): the 2026-07-28 revision is stateless (a client
// discovers the server with server/discover and every request carries the
// _meta envelope); the 2025 revisions use the initialize handshake.
const (
	EraAuto   = "auto"
	EraModern = report.EraModern
	EraLegacy = report.EraLegacy
	// EraBoth audits the server in the modern era, then in the legacy
	// one, and reports the verdicts that differ (see [Run]).
	EraBoth = "both"
)

// ModernProtocolVersion is the protocol version mcp-fuzz offers in
// server/discover unless --protocol-version says otherwise.
const ModernProtocolVersion = "2026-07-28"

// ErrConnect marks a target that could not be started or connected at all
// (exit code 3).
var ErrConnect = errors.New("cannot connect to the target")

// tool is the engine's short name for a listed tool.
type tool = mcptool.Tool

// newDialer returns the dialer of cfg's target: the secrets to redact,
// the stdio server's environment and box, or the HTTP target's headers.
func newDialer(cfg Config) (*session.Dialer, error) {
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	detector := leak.NewDetector(cfg.secrets())
	guardLog(detector)
	opts := session.Options{
		Command: cfg.Command, Cwd: cfg.Cwd, URL: cfg.URL, Bearer: cfg.Bearer,
		Era: cfg.Era, ProtocolVersion: cfg.ProtocolVersion,
		MaxResponse: cfg.MaxResponse, StartupTimeout: cfg.StartupTimeout,
		Version: cfg.Version, Leak: detector,
	}
	if len(cfg.Command) > 0 {
		env, err := stdio.MinimalEnv(cfg.LookupEnv, cfg.Env, cfg.PassEnv)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		opts.Box = cfg.boxes.get(cfg, env)
		opts.Env = withHome(env, opts.Box)
		return session.NewDialer(opts), nil
	}
	if _, err := url.Parse(cfg.URL); err != nil {
		return nil, &ConfigError{Format: "{URL} %q: does not parse", Args: []any{secret.HideUserinfo(cfg.URL)}}
	}
	opts.Headers = http.Header{}
	for _, h := range cfg.Headers {
		n, v, _ := parseHeader(h)
		opts.Headers.Add(n, v)
	}
	return session.NewDialer(opts), nil
}
