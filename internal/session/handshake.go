package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LegacyVersion is the version mcp-fuzz asks for in initialize.
const LegacyVersion = "2025-11-25"

// handshake names the request a session that never got going was waiting
// for.
func (s *Session) handshake() string {
	if s.Era == EraModern || s.Era == "" {
		return "server/discover"
	}
	return "initialize"
}

// start negotiates on conn as a current client does (docs/BEHAVIOUR.md#targets-and-transports): unless the
// era is legacy, server/discover first; a server that does not speak the
// stateless era gets the initialize handshake instead (unless the era is
// modern: then that is the error).
func (s *Session) start(ctx context.Context, conn mcp.Connection, opts Options) error {
	s.version, s.maxResponse = opts.Version, opts.MaxResponse
	s.Client = rpc.NewObserved(conn, func(v rpc.Violation) {
		if v.Kind == rpc.KindLateAnswer {
			s.noteLate()
			return
		}
		s.violate(v.Kind + ": " + v.Excerpt)
	}, s.observed.sawServerMessage)
	if opts.Era != EraLegacy {
		offer := opts.ProtocolVersion
		if offer == "" {
			offer = ModernProtocolVersion
		}
		d, err := s.discover(ctx, offer)
		var no *errNoModern
		switch {
		case err == nil:
			s.SetPhase(PhaseBetweenCalls)
			s.Era, s.Supported = EraModern, d.supported
			return nil
		case !errors.As(err, &no):
			return fmt.Errorf("server/discover: %w", err)
		case opts.Era == EraModern && no.overCap:
			return fmt.Errorf("--era modern: %s: raise --max-response (up to 1GiB) to audit a server whose discover answer is this large", no.why)
		case opts.Era == EraModern:
			return fmt.Errorf("--era modern: the server does not speak the stateless %s era: %s", offer, no.why)
		case s.PendingLine() > 0:
			// stdout is in the middle of the answer (still coming, or
			// never ending): initialize's answer would be lost in it.
			return fmt.Errorf("%w%w", no, wrapQuiet{errStreamCut})
		}
		s.Init = initializeResult{}
		s.EraReason = no.why
	}
	s.Era = EraLegacy
	params := map[string]any{
		"protocolVersion": LegacyVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcp-fuzz", "version": opts.Version},
	}
	raw, _, err := s.CallOnce(ctx, "initialize", params)
	s.SetPhase(PhaseBetweenCalls)
	var rpcErr *rpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return fmt.Errorf("the server answered initialize with JSON-RPC error %d: %s", rpcErr.Code, textcut.Excerpt(rpcErr.Message, 200))
	case err != nil:
		return fmt.Errorf("initialize: %w", err)
	}
	if s.Init, err = parseInitialize(raw); err != nil {
		// Unescaped before redaction: a secret spelled \u0074\u006f... is
		// still a secret.
		answer, _ := s.excerptFound(string(raw), 200)
		return fmt.Errorf("the server's answer to initialize is malformed: %v (answer: %s)", err, answer)
	}
	return s.Client.Notify(ctx, "notifications/initialized", map[string]any{})
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
// mcp-fuzz speaks. It offers [LegacyVersion]; a server may answer with
// another version it supports, and any of these is accepted.
var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// VersionLint reports a protocolVersion in the initialize answer that
// mcp-fuzz did not offer and does not know. The spec lets the client
// disconnect then; mcp-fuzz goes on auditing under the rules of the version
// it offered, so the rest of the report stays useful, and says so.
func VersionLint(era, answered string) []report.Lint {
	if era == EraModern || slices.Contains(knownVersions, answered) {
		return nil
	}
	return []report.Lint{{
		Code:     "unknown_protocol_version",
		Severity: report.SeverityError,
		Message:  fmt.Sprintf("initialize was answered with protocolVersion %q, which mcp-fuzz did not offer (it asked for %s) and does not know; the audit went on under %s's rules", textcut.Excerpt(answered, 40), LegacyVersion, LegacyVersion),
		Hint:     "answer initialize with the version the client asked for when you support it, else with the latest version you support",
	}}
}

// LegacyOnlyLint is the warning for a server that, offered the current
// revision (--era auto), could speak only a 2025 one: why says what it did
// instead (its answer to server/discover).
func LegacyOnlyLint(why string) []report.Lint {
	msg := fmt.Sprintf("the server does not speak the current revision %s (stateless, server/discover); it was audited in the 2025 era", ModernProtocolVersion)
	if why != "" {
		msg += ": " + textcut.Excerpt(why, 200)
	}
	return []report.Lint{{
		Code:     report.LintLegacyOnly,
		Severity: report.SeverityWarning,
		Message:  msg,
		Hint:     "implement server/discover and the " + ModernProtocolVersion + " request envelope; clients of the current revision cannot use a server that speaks only the 2025 ones",
	}}
}
