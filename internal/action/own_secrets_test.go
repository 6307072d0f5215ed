package action

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestOwnSecretsAreMasked checks that the tokens of the Action's own
// environment (the workflow's GITHUB_TOKEN, the runner's ACTIONS_* tokens,
// the github-token input) are masked before anything else is printed, even
// when the inputs are wrong, and that harmless variables are not.
func TestOwnSecretsAreMasked(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"GITHUB_WORKSPACE":               t.TempDir(),
		"GITHUB_TOKEN":                   "ghp_workflow0123456789abcdef",
		"ACTIONS_RUNTIME_TOKEN":          "runtime-token-0123456789",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "id-request-token-0123456789",
		"INPUT_GITHUB-TOKEN":             "ghs_input0123456789abcdef",
		"DEPLOY_TOKEN":                   "deploy-token-0123456789",
		"PATH":                           os.Getenv("PATH"),
		"NO_PROXY":                       "127.0.0.1,localhost",
		"GITHUB_REPOSITORY":              "owner/repository",
		"INPUT_SECRETS":                  "API_KEY,DB_PASSWORD",
		"INPUT_CASES":                    "many", // a usage error: masks come first
	}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	var out, progress bytes.Buffer
	code := Run(context.Background(), Env{
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return environ },
		Stdout:  &out, Stderr: &progress,
	})
	if code != ExitUsage {
		t.Errorf("exit %d, want %d\n%s", code, ExitUsage, out.String())
	}
	masks := map[string]bool{}
	firstOther := -1
	for i, line := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "::add-mask::"); ok {
			masks[v] = true
			if firstOther >= 0 {
				t.Errorf("::add-mask:: after other output: %q", line)
			}
		} else if line != "" && firstOther < 0 {
			firstOther = i
		}
	}
	for _, k := range []string{"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "INPUT_GITHUB-TOKEN", "DEPLOY_TOKEN"} {
		if !masks[env[k]] {
			t.Errorf("%s is not masked; masks: %v", k, masks)
		}
	}
	for _, k := range []string{"PATH", "NO_PROXY", "GITHUB_REPOSITORY", "INPUT_SECRETS", "GITHUB_WORKSPACE"} {
		if masks[env[k]] {
			t.Errorf("%s=%s is masked: it is no secret", k, env[k])
		}
	}
}
