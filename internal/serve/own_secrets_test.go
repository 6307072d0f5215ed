package serve

import "testing"

// TestRedactorHidesOwnSecrets checks that the text tools return outside the
// report model has mcp-fuzz's own tokens masked too, and that handlers find
// them in the environment they are given.
func TestRedactorHidesOwnSecrets(t *testing.T) {
	t.Parallel()
	h := &handlers{o: Options{Environ: func() []string {
		return []string{"GITHUB_TOKEN=ghp_own0123456789abcdef", "GITHUB_REPOSITORY=owner/repository", "SHORT_TOKEN=abc"}
	}}}
	own := h.own()
	if len(own) != 1 || own["GITHUB_TOKEN"] != "ghp_own0123456789abcdef" {
		t.Fatalf("own = %q, want GITHUB_TOKEN alone", own)
	}
	redact := Target{Env: []string{"API_KEY=given-key-0123456789"}}.redactor(nil, own)
	got := redact("stderr: ghp_own0123456789abcdef given-key-0123456789 owner/repository abc")
	if want := "stderr: *** *** owner/repository abc"; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}
}
