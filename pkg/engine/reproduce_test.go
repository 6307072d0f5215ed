package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestReproduceEscapesControls checks that the reproducer's JSON-RPC line
// writes the control characters of a tool name and its arguments as \uXXXX,
// so every report format can print it unchanged, and that it still carries
// the same name and arguments.
func TestReproduceEscapesControls(t *testing.T) {
	parallel(t)
	name := "t\u202e\u009b"
	args, _ := json.Marshal(map[string]string{"q": "\u009b[31m\x7f\u2066\u061c"})
	for _, cfg := range []Config{{Command: []string{"node", "server.js"}}, {URL: "http://localhost:3000/mcp"}} {
		r := reproduce(&report.Report{}, cfg, name, report.Case{Arguments: args})
		if strings.ContainsAny(r.JSONRPC+r.Shell, "\u202e\u009b\x7f\u2066\u061c") {
			t.Errorf("raw control character in reproducer: %q / %q", r.JSONRPC, r.Shell)
		}
		if !strings.Contains(r.Shell, r.JSONRPC) {
			t.Errorf("shell line %q does not send %q", r.Shell, r.JSONRPC)
		}
		var call struct {
			Params struct {
				Name      string            `json:"name"`
				Arguments map[string]string `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(r.JSONRPC), &call); err != nil {
			t.Fatalf("%q: %v", r.JSONRPC, err)
		}
		if call.Params.Name != name || call.Params.Arguments["q"] != "\u009b[31m\x7f\u2066\u061c" {
			t.Errorf("reproducer changed the call: %+v", call.Params)
		}
	}
}

// A secret written into the server command, its working directory or the
// URL's query never reaches a reproducer or the report's target: both spell
// the config's redacted view.
func TestReproducersKeepSecretsOut(t *testing.T) {
	parallel(t)
	const token, other, query = "tok-canary-1234567890", "tok-canary-sec-0987654321", "abcdefgh12345678"
	lookup := func(k string) (string, bool) { return other, k == "SECRET_X" }
	c := report.Case{ID: "t/valid", Kind: report.KindValid, Verdict: report.Crash, Arguments: []byte(`{"q":1}`)}
	big := report.Case{ID: "t/oversize/q#string", Kind: report.KindOversize, Verdict: report.Crash,
		ArgumentsDigest: &report.ArgumentsDigest{Kind: "object", Bytes: 70000}}
	rep := &report.Report{Tools: []report.Tool{{Name: "t", Tested: true, Cases: []report.Case{c, big}}}}
	for _, cfg := range []Config{
		{Command: []string{"srv", "--token", token, "--other=" + other}, Cwd: "/srv/" + token,
			Env: []string{"API_TOKEN=" + token}, PassEnv: []string{"SECRET_X"}, Secrets: []string{"SECRET_X"}, LookupEnv: lookup},
		{URL: "http://127.0.0.1:9/mcp?client_secret=" + query + "&token=" + token, Bearer: token},
	} {
		d := leak.NewDetector(cfg.secrets())
		target, _ := json.Marshal(cfg.shown(d).target("stdio"))
		for _, secret := range []string{token, other, query} {
			if strings.Contains(string(target), secret) {
				t.Errorf("the target shows a secret: %s", target)
			}
		}
		for _, f := range findings(rep, cfg.shown(d)) {
			all := f.Reproducer.Shell + f.Reproducer.JSONRPC + f.Reproducer.Generator
			for _, secret := range []string{token, other, query} {
				if strings.Contains(all, secret) {
					t.Errorf("reproducer of %s shows a secret: %s", f.ID, all)
				}
			}
		}
	}
}
