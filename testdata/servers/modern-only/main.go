// Command modern-only is a raw fixture server of the stateless 2026-07-28
// revision only: it answers initialize and ping with -32601, and every
// request must carry the _meta envelope (-32022 with data.supported when
// the protocol version is missing or unsupported, -32602 when the client
// capabilities or client info are missing or malformed). Its tools: echo,
// well-behaved, and confirm, which asks for an elicitation once (an
// input_required result, when the client declared elicitation) and
// answers once the client has responded with the requestState it handed
// out.
//
// With --lenient it is the same server that ignores the envelope and the
// requestState: it serves any request it knows, whatever its _meta. With
// --exit-on-bad-envelope it exits (code 3) on a request whose envelope it
// would refuse, with --hang-on-bad-envelope it never answers one, and with
// --slow-on-bad-envelope it refuses one after 1.5 s.
//
// With --legacy-habits it keeps what the revision removed or changed: it
// serves ping and logging/setLevel, declares logging and resources, leaves
// resultType out of tools/call results and the cache hints out of lists
// (ttlMs -5), answers a missing resource with -32002 and confirm's bad
// input with -32050 (reserved, undefined), asks for sampling instead of
// elicitation, and logs with notifications/message.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

// Version is the only protocol version the server speaks.
const Version = "2026-07-28"

// State is the requestState of confirm's input_required answer: with
// --secret-state, the base64 of a JSON object carrying $UPSTREAM_TOKEN, as
// a server that keeps its upstream credentials in the state would.
var State = state()

func state() string {
	if slices.Contains(os.Args[1:], "--secret-state") {
		return base64.StdEncoding.EncodeToString([]byte(`{"user":"bob","upstream_token":"` + os.Getenv("UPSTREAM_TOKEN") + `"}`))
	}
	return "confirm-round-1"
}

type envelope struct {
	Meta map[string]json.RawMessage `json:"_meta"`
}

// checkEnvelope refuses a request without a valid envelope.
func checkEnvelope(req *rawserver.Request) error {
	var e envelope
	_ = json.Unmarshal(req.Params, &e)
	var v string
	if json.Unmarshal(e.Meta["io.modelcontextprotocol/protocolVersion"], &v) != nil || v != Version {
		return &rawserver.Error{Code: -32022, Message: fmt.Sprintf("unsupported protocol version %q", v), Data: map[string]any{"supported": []string{Version}, "requested": v}}
	}
	var caps map[string]any
	if json.Unmarshal(e.Meta["io.modelcontextprotocol/clientCapabilities"], &caps) != nil || caps == nil {
		return &rawserver.Error{Code: -32602, Message: "missing or malformed client capabilities in _meta"}
	}
	if info, ok := e.Meta["io.modelcontextprotocol/clientInfo"]; ok {
		var m map[string]any
		if json.Unmarshal(info, &m) != nil || m == nil {
			return &rawserver.Error{Code: -32602, Message: "malformed client info in _meta"}
		}
	}
	return nil
}

// lenient is set by --lenient: the envelope and the requestState are not
// checked.
var lenient = slices.Contains(os.Args[1:], "--lenient")

// habits is set by --legacy-habits.
var habits = slices.Contains(os.Args[1:], "--legacy-habits")

// servedIfHabits serves a removed method with an empty result under
// --legacy-habits, and refuses it otherwise.
func servedIfHabits(s *rawserver.Server, req *rawserver.Request) (any, error) {
	if habits {
		return map[string]any{}, nil
	}
	return notFound(s, req)
}

// declaresElicitation reports whether the request's client capabilities
// declare elicitation.
func declaresElicitation(req *rawserver.Request) bool {
	var e envelope
	_ = json.Unmarshal(req.Params, &e)
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(e.Meta["io.modelcontextprotocol/clientCapabilities"], &caps)
	_, ok := caps["elicitation"]
	return ok
}

func complete(m map[string]any) map[string]any {
	m["resultType"] = "complete"
	return m
}

func modern(h rawserver.Handler) rawserver.Handler {
	return func(s *rawserver.Server, req *rawserver.Request) (any, error) {
		if err := checkEnvelope(req); err != nil && !lenient {
			switch {
			case slices.Contains(os.Args[1:], "--exit-on-bad-envelope"):
				os.Exit(3)
			case slices.Contains(os.Args[1:], "--hang-on-bad-envelope"):
				time.Sleep(time.Hour)
			case slices.Contains(os.Args[1:], "--slow-on-bad-envelope"):
				time.Sleep(1500 * time.Millisecond)
			}
			return nil, err
		}
		return h(s, req)
	}
}

func notFound(_ *rawserver.Server, req *rawserver.Request) (any, error) {
	return nil, &rawserver.Error{Code: -32601, Message: fmt.Sprintf("method not found: %q (this server speaks %s only)", req.Method, Version)}
}

func main() {
	spawn.Record("server")
	confirm := rawserver.Tool("confirm", "Ask the user to confirm, then answer q back.", rawserver.OneString())
	echo := rawserver.PoliteTool("echo")
	rawserver.Main(&rawserver.Server{
		Name:    "modern-only",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"initialize":       notFound,
			"ping":             servedIfHabits,
			"logging/setLevel": servedIfHabits,
			"resources/list": modern(func(*rawserver.Server, *rawserver.Request) (any, error) {
				return complete(map[string]any{"resources": []any{}}), nil
			}),
			"resources/read": modern(func(*rawserver.Server, *rawserver.Request) (any, error) {
				if habits {
					return nil, &rawserver.Error{Code: -32002, Message: "resource not found"}
				}
				return nil, &rawserver.Error{Code: -32602, Message: "resource not found"}
			}),
			"server/discover": modern(func(*rawserver.Server, *rawserver.Request) (any, error) {
				caps := map[string]any{"tools": map[string]any{}}
				if habits {
					caps["logging"] = map[string]any{}
					caps["resources"] = map[string]any{}
				}
				return complete(map[string]any{
					"supportedVersions": []string{Version},
					"capabilities":      caps,
					"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "modern-only", "version": "1.0.0"}},
				}), nil
			}),
			"tools/list": modern(func(*rawserver.Server, *rawserver.Request) (any, error) {
				if habits {
					return complete(map[string]any{"tools": []any{echo, confirm}, "ttlMs": -5}), nil
				}
				return complete(map[string]any{"tools": []any{echo, confirm}, "ttlMs": 60000, "cacheScope": "private"}), nil
			}),
			"tools/call": modern(func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				switch p.Name {
				case "echo":
					if habits {
						_ = s.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "echo called"}})
						return rawserver.PoliteAnswer(p), nil
					}
					return complete(rawserver.PoliteAnswer(p)), nil
				case "confirm":
					return confirmCall(req, p)
				}
				return nil, rawserver.UnknownTool(p.Name)
			}),
		},
	})
}

// confirmCall is confirm: invalid arguments are an isError answer; valid
// ones first get an input_required answer asking for an elicitation, and the
// retry carrying its requestState and a response gets the real answer.
func confirmCall(req *rawserver.Request, p *rawserver.CallParams) (any, error) {
	r := rawserver.PoliteAnswer(p)
	if r["isError"] == true {
		if habits {
			return nil, &rawserver.Error{Code: -32050, Message: "invalid arguments"}
		}
		return complete(r), nil
	}
	var retry struct {
		RequestState   string                     `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = json.Unmarshal(req.Params, &retry)
	if retry.RequestState == "" {
		if habits {
			return map[string]any{
				"resultType": "input_required",
				"inputRequests": map[string]any{
					"ask": map[string]any{"method": "sampling/createMessage", "params": map[string]any{"messages": []any{}, "maxTokens": 10}},
				},
				"requestState": State,
			}, nil
		}
		if !declaresElicitation(req) && !lenient {
			return complete(map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "confirm needs a client that declares elicitation"}}}), nil
		}
		return map[string]any{
			"resultType": "input_required",
			"inputRequests": map[string]any{
				"ok": map[string]any{"method": "elicitation/create", "params": map[string]any{
					"message":         "Proceed?",
					"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
				}},
			},
			"requestState": State,
		}, nil
	}
	if retry.RequestState != State && !lenient {
		return nil, &rawserver.Error{Code: -32602, Message: "unknown requestState"}
	}
	var answer struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(retry.InputResponses["ok"], &answer) != nil || answer.Action == "" {
		return nil, &rawserver.Error{Code: -32602, Message: "the retry carries no response to input request ok"}
	}
	return complete(rawserver.Text("confirm: the user answered " + answer.Action)), nil
}
