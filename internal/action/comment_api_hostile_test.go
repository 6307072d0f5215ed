package action

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/comment"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
)

// TestCommentHostileAPIMessages checks that what a hostile GitHub API says
// in its error messages reaches the log as part of one workflow command,
// with no line of its own and no terminal escape sequence.
func TestCommentHostileAPIMessages(t *testing.T) {
	t.Parallel()
	evil := "nope\n::error::pwned\r\n::add-mask::x\x1b[2J\x1b]8;;https://evil.example\x07"
	srv := fakegithub.NewRefusing(t, evil)
	newClient := func(apiURL, graphqlURL, token string, hc *http.Client) (*comment.API, error) {
		return comment.Connect(srv.URL, srv.URL+"/graphql", token, hc)
	}
	_, out := runDemo(t, prEnv(t), newClient)
	if !strings.Contains(out, "pwned") {
		t.Fatalf("the API's message is not in the log:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "::error::pwned") || strings.HasPrefix(line, "::add-mask::x") || strings.ContainsAny(line, "\x1b\x07") {
			t.Errorf("injected %q", line)
		}
	}
}

// TestCommentHostileSlowAPI checks that an API that answers every request
// slowly, with a next page forever, does not hold the job past the
// comment's budget. It sets commentBudget: not a parallel test.
func TestCommentHostileSlowAPI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/user":
			_, _ = w.Write([]byte(`{"login":"me"}`))
			return
		case "/graphql":
			_, _ = w.Write([]byte(`{"data":{"viewer":{"login":"me"}}}`))
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=%d>; rel="next"`, r.Host, r.URL.Path, max(page, 1)+1))
		_, _ = w.Write([]byte("[]"))
	}))
	defer srv.Close()
	defer func(d time.Duration) { commentBudget = d }(commentBudget)
	commentBudget = 2 * time.Second
	newClient := func(apiURL, graphqlURL, token string, hc *http.Client) (*comment.API, error) {
		return comment.Connect(srv.URL, srv.URL+"/graphql", token, hc)
	}
	start := time.Now()
	_, out := runDemo(t, prEnv(t), newClient)
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("the action took %v", d)
	}
	if !strings.Contains(out, "commenting on pull request #3 failed") {
		t.Errorf("no warning that commenting failed:\n%s", out)
	}
}
