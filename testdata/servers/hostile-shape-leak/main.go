// Command hostile-shape-leak is a raw fixture server that writes secrets
// mcp-fuzz was never given (as if it had read them from its environment)
// everywhere a server can put text: serverInfo.name, .title and .version,
// instructions, a tool title and description, a property's description,
// enum, default and examples, tool results, isError texts, JSON-RPC error
// messages and data, and stderr (also right before it exits, for the crash
// finding's stderr tail). They are token shapes (GitHub, AWS, Slack, JWT,
// Google, Stripe, npm, a private key, long random strings), some split by
// zero-width characters. Only their shape can tell them: every one must be
// redacted before it reaches a report.
//
// With -clean it is its healthy twin: the same server, the same answers,
// with healthy technical text in place of each secret (sha256 digests,
// UUIDs, paths, a host list, base64 of a sentence), none of which may be
// redacted.
//
// Tools: lookup (the secrets in its metadata and schema; a missing q gets
// -32602, a null q -32603 with data, a non-string q isError, an oversize q
// an exit with status 3) and plain (a clean schema, a secret in its answer).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

// zw is a zero-width space.
const zw = "\u200b"

// The secrets, assembled at run time so that no scanner mistakes this file
// for one holding credentials; the tests know them by their bodies.
var secrets = map[string]string{
	"name":         "ghp" + "_" + strings.Repeat("Nm4x", 9),
	"title":        "ghs" + "_" + strings.Repeat("Tt5y", 9),
	"version":      "AKIA" + "NAMEVERSION2QXYZ",
	"instructions": "xox" + "b-1234567890-InStRuCtIoNs42abc",
	"split":        "gh" + zw + "p_" + strings.Repeat("Sp1t", 9),
	"jwt":          "eyJ" + "hbGciOiJIUzI1NiJ9.eyJzdWIiOiJJbnN0cnVjdGlvbnMifQ.JwtSignatureBody0123456789abc",
	"toolTitle":    "npm" + "_" + strings.Repeat("Tl7z", 9),
	"description":  "AIza" + "SyDescriptionKey0123456789abcdefghi",
	"splitMany":    "g" + zw + "h" + "\u2060" + "o_" + strings.Repeat("Mny8", 9),
	"enum":         "sk" + "_live_" + "EnumValue0123456789abcd",
	"random":       "Qz7" + "LmX2vRt9KpW4nBc6YhJ1dFs8GaE5uTk0",
	"default":      "ghr" + "_" + strings.Repeat("Df6w", 9),
	"example":      "rk" + "_live_" + "ExampleKey0123456789wxyz",
	"result":       "ASIA" + "RESULTVALUE7QXYZ",
	"resultSplit":  "gh" + zw + "u_" + strings.Repeat("Rs9v", 9),
	"resultRandom": "Vb3" + "NpQ8sW2xZ6cK9mT4rY7hL1gF5dJ0aUe",
	"error":        "github" + "_pat_" + "11ERRORBODY0123456789_abcdefghijklmnopqrstuv",
	"stderr":       "ghp" + "_" + strings.Repeat("St3r", 9),
	"key":          "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
}

// healthy is what the clean twin says instead, one per secret.
var healthy = map[string]string{
	"name":         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"title":        "550e8400-e29b-41d4-a716-446655440000",
	"version":      "da39a3ee5e6b4b0d3255bfef95601890afd80709",
	"instructions": "127.0.0.1,localhost,::1",
	"split":        "/usr/local/share/shape-leak/data.json",
	"jwt":          "https://example.com/api/v2/items?page=3",
	"toolTitle":    "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
	"description":  "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==",
	"splitMany":    "AbstractSingletonProxyFactoryBean2Impl",
	"enum":         "sha256-digest-e3b0c44298fc1c149afbf4c8996fb924",
	"random":       "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
	"default":      "a591a6d40bf420404a011733cfb7b190d62c65bf0bcda32b57b277d9ad9f146e",
	"example":      "f47ac10b-58cc-4372-a567-0e02b2c3d479",
	"result":       "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"resultSplit":  "/home/runner/work/MyProject2/src/Components/Button4.tsx",
	"resultRandom": "getUserAccountInformationByIdentifier2",
	"error":        "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9",
	"stderr":       "c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a",
	"key":          "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUS\n-----END CERTIFICATE-----",
}

var clean = flag.Bool("clean", false, "be the healthy twin: no secret anywhere")

// s is the text for the secret named name.
func s(name string) string {
	if *clean {
		return healthy[name]
	}
	return secrets[name]
}

func tools() []any {
	lookup := rawserver.Tool("lookup", "Look up a record with "+s("description")+" or "+s("splitMany")+".", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"q": map[string]any{"type": "string", "maxLength": 100, "description": "What to look up; see " + s("random") + "."},
			"mode": map[string]any{
				"type":        "string",
				"enum":        []string{"fast", s("enum"), s("default")},
				"default":     s("default"),
				"examples":    []string{s("example")},
				"description": "Lookup mode.",
			},
		},
		"required":             []string{"q"},
		"additionalProperties": false,
	})
	lookup["title"] = "Lookup " + s("toolTitle")
	plain := rawserver.Tool("plain", "Answer any question in plain text.", rawserver.OneString())
	return []any{lookup, plain}
}

func call(srv *rawserver.Server, req *rawserver.Request) (any, error) {
	fmt.Fprintf(os.Stderr, "tools/call, credentials %s\n", s("stderr"))
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(p.Arguments, &args) != nil || args == nil {
		return nil, &rawserver.Error{Code: -32602, Message: "arguments must be an object; key " + s("error")}
	}
	q, present := args["q"]
	var text string
	isString := present && json.Unmarshal(q, &text) == nil && len(q) > 0 && q[0] == '"'
	answer := "served with " + s("result") + ", " + s("resultSplit") + " and " + s("resultRandom")
	switch p.Name {
	case "plain":
		if !isString {
			return rawserver.ErrorText("q must be a string (" + s("error") + ")"), nil
		}
		return rawserver.Text("plain answer, " + answer), nil
	case "lookup":
		switch {
		case !present:
			return nil, &rawserver.Error{Code: -32602, Message: "q is required; key " + s("error")}
		case string(q) == "null":
			// An error with data, written by hand: Respond drops data.
			err := srv.Send(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
				"code": -32603, "message": "internal error: " + s("error"), "data": map[string]any{"key": s("key")},
			}})
			if err != nil {
				return nil, err
			}
			return nil, rawserver.ErrAnswered
		case !isString:
			return rawserver.ErrorText("q must be a string; key " + s("error")), nil
		case len(text) > 1000:
			fmt.Fprintf(os.Stderr, "fatal: q too long; credentials %s\n%s\n", s("stderr"), s("key"))
			os.Exit(3)
		}
		return rawserver.Text("found a record, " + answer), nil
	}
	return nil, rawserver.UnknownTool(p.Name)
}

func main() {
	flag.Parse()
	spawn.Record("server")
	fmt.Fprintf(os.Stderr, "starting, credentials %s\n", s("stderr"))
	srv := &rawserver.Server{
		Name:         "shape-leak " + s("name"),
		Version:      "1.0.0+" + s("version"),
		Instructions: "Use " + s("instructions") + ", " + s("split") + " or " + s("jwt") + ".",
	}
	srv.Methods = map[string]rawserver.Handler{
		"initialize": func(srv *rawserver.Server, req *rawserver.Request) (any, error) {
			res := srv.Initialize(req.Params).(map[string]any)
			res["serverInfo"].(map[string]any)["title"] = "Shape leak " + s("title")
			return res, nil
		},
		"tools/list": rawserver.ToolsList(tools()),
		"tools/call": call,
	}
	rawserver.Main(srv)
}
