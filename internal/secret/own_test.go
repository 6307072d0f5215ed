package secret

import (
	"maps"
	"testing"
)

func TestOwnTakesTokensOnly(t *testing.T) {
	t.Parallel()
	environ := []string{
		"GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz",
		"GH_TOKEN=gho_first-one-wins-1234",
		"GH_TOKEN=gho_second-entry-5678",
		"ACTIONS_RUNTIME_TOKEN=eyJhbGciOiJSUzI1NiJ9.runtime",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=request-token-0042",
		"ACTIONS_ID_TOKEN_REQUEST_URL=https://pipelines.example/idtoken?api-version=2.0",
		"INPUT_GITHUB-TOKEN=ghs_inputtoken0123456789",
		"NPM_TOKEN=npm_registrytoken012345",
		"MCP_FUZZ_BEARER=bearer-from-env-99",
		"MY_API_KEY=some-api-key-value",
		// Harmless, whatever the name says.
		"PATH=/usr/local/bin:/usr/bin",
		"NO_PROXY=127.0.0.1,localhost",
		"GITHUB_REPOSITORY=owner/repo",
		"GITHUB_SHA=0123456789abcdef0123456789abcdef01234567",
		"INPUT_SECRETS=API_KEY,DB_PASSWORD",
		"INPUT_PASS-ENV=HOME,PATH",
		"INPUT_COMMENT-KEY=my-server-key",
		"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.123",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
		"CI_TOKEN=true",
		"TOX_TESTENV_PASSENV=OPENBLAS_* PYTHONPATH",
		"PWD=relative-looking-value-123",
		"SHORT_TOKEN=abc",
		"NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
		"=leading",
		"NOEQUALS",
	}
	want := map[string]string{
		"GITHUB_TOKEN":                   "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
		"GH_TOKEN":                       "gho_first-one-wins-1234",
		"ACTIONS_RUNTIME_TOKEN":          "eyJhbGciOiJSUzI1NiJ9.runtime",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token-0042",
		"INPUT_GITHUB-TOKEN":             "ghs_inputtoken0123456789",
		"NPM_TOKEN":                      "npm_registrytoken012345",
		"MCP_FUZZ_BEARER":                "bearer-from-env-99",
		"MY_API_KEY":                     "some-api-key-value",
	}
	if got := Own(environ); !maps.Equal(got, want) {
		t.Errorf("Own =\n%q\nwant\n%q", got, want)
	}
	if got := Own(nil); len(got) != 0 {
		t.Errorf("Own(nil) = %q, want none", got)
	}
}
