package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/comment"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// CommentClientFunc connects to the GitHub API at apiURL (GITHUB_API_URL,
// ending in "/", so GitHub Enterprise Server works) and graphqlURL
// (GITHUB_GRAPHQL_URL) with token, over hc, for the pull request comment.
// See [Env.CommentClient]; [comment.Connect] is the default.
type CommentClientFunc func(apiURL, graphqlURL, token string, hc *http.Client) (*comment.API, error)

// commentBudget bounds the whole of commenting; a variable for tests.
var commentBudget = 10 * time.Minute

// comment upserts the pull request comment as the comment input says.
// Nothing here changes the exit code: every problem is a notice or a warning.
func (r *runner) comment(ctx context.Context, rep *report.Report) {
	if r.s.comment == commentOff {
		return
	}
	ghc, err := r.gh.Context()
	if ghc == nil {
		r.gh.Warningf("mcp-fuzz: reading the workflow context: %v; no pull request comment", err)
		return
	}
	number := 0
	if ghc.EventName == "pull_request" || ghc.EventName == "pull_request_target" {
		if pr, ok := ghc.Event["pull_request"].(map[string]any); ok {
			if n, ok := pr["number"].(float64); ok {
				number = int(n)
			}
		}
	}
	if number == 0 {
		if r.s.comment == commentAlways {
			r.gh.Noticef("mcp-fuzz: comment is %q, but this %s run has no pull request: job summary only", commentAlways, orUnknown(ghc.EventName))
		}
		return
	}
	owner, repo := ghc.Repo()
	if owner == "" || repo == "" {
		r.gh.Warningf("mcp-fuzz: GITHUB_REPOSITORY is not set: no pull request comment")
		return
	}
	if r.s.token == "" {
		r.gh.Noticef("mcp-fuzz: no github-token: no pull request comment")
		return
	}
	apiURL := ghc.APIURL
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	newClient := r.env.CommentClient
	if newClient == nil {
		newClient = comment.Connect
	}
	// GITHUB_GRAPHQL_URL, when Actions sets it; else the one that goes
	// with the API URL (the context's default is github.com's).
	api, err := newClient(apiURL, r.env.Getenv("GITHUB_GRAPHQL_URL"), r.s.token, r.env.HTTPClient)
	if err != nil {
		r.gh.Warningf("mcp-fuzz: commenting on pull request #%d failed: %s", number, apiText(err))
		return
	}
	// Our comment is the one whose first line is the marker and whose
	// author is the token's own login (MCP_FUZZ_COMMENT_AUTHOR overrides
	// it); nobody else's is edited or deleted.
	// A slow or endless API (every request under its deadline, pages
	// that never end) must not hold the job: commenting gets a budget.
	ctx, cancel := context.WithTimeout(ctx, commentBudget)
	defer cancel()
	author := r.env.Getenv("MCP_FUZZ_COMMENT_AUTHOR")
	target := render.TargetName(rep)
	key := r.s.commentKey
	if key == "" {
		key = strings.TrimSpace(ghc.Job + " " + target)
	}
	u, err := api.Upserter(ctx, comment.Target{Owner: owner, Repo: repo, Number: number, Author: author})
	if err != nil {
		r.gh.Noticef("mcp-fuzz: %s; set MCP_FUZZ_COMMENT_AUTHOR to the login the github-token comments as", apiText(err))
	}
	res, err := u.Upsert(ctx, comment.Section{Key: key, Target: target, Report: rep})
	for _, n := range res.Notices {
		r.gh.Noticef("mcp-fuzz: pull request #%d comment: %s", number, apiText(n))
	}
	switch {
	case errors.Is(err, comment.ErrNoAccess):
		r.gh.Noticef("mcp-fuzz: no permission to comment on pull request #%d (%v). A pull request from a fork gets a read-only token: "+
			"the results are in the job summary; to comment on fork pull requests, upload the JSON report as an artifact and comment "+
			"from a workflow_run workflow, or grant 'pull-requests: write'.", number, apiText(err))
	case err != nil:
		r.gh.Warningf("mcp-fuzz: commenting on pull request #%d failed: %s", number, apiText(err))
	default:
		fmt.Fprintf(r.env.Stdout, "mcp-fuzz: pull request #%d comment: %s\n", number, res)
	}
}

// apiText is an error or notice that may quote the GitHub API (its
// messages, a login it named) with no terminal escape sequence, on one line
// of at most 2,000 characters.
func apiText(v any) string { return escape.Terminal(fmt.Sprint(v), 2000) }

func orUnknown(s string) string {
	if s == "" {
		return "(unknown event)"
	}
	return s
}
