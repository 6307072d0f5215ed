package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Commenter upserts this step's section of a pull request's mcp-fuzz
// comment. Implementations return an error wrapping [ErrNoAccess] when the
// token may not comment (a fork's read-only token, a 403 or a 404).
type Commenter interface {
	Upsert(ctx context.Context, pr PullRequest, sec Section) (what string, err error)
}

// PullRequest names the pull request to comment on, and the login whose
// comment is ours.
type PullRequest struct {
	Owner, Repo string
	Number      int
	Author      string
}

// Section is this step's part of the comment.
type Section struct {
	Key    string // comment-key: which section to replace
	Target string // the target's name, for the comment's table
	Report *report.Report
}

// ErrNoAccess marks a token that may not comment; the action then prints a
// notice and carries on.
var ErrNoAccess = errors.New("the token may not comment on this pull request")

// DefaultCommenter builds the commenter used when [Env.NewCommenter] is nil:
// [GitHubCommenter]. When nil, the action says that commenting is
// unavailable.
var DefaultCommenter = GitHubCommenter

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
	newCommenter := r.env.NewCommenter
	if newCommenter == nil {
		newCommenter = DefaultCommenter
	}
	if newCommenter == nil {
		r.gh.Noticef("mcp-fuzz: this build cannot comment on pull requests: job summary only")
		return
	}
	apiURL := ghc.APIURL
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	// Our comment is the one whose first line is the marker; with
	// MCP_FUZZ_COMMENT_AUTHOR, only that login's.
	author := r.env.Getenv("MCP_FUZZ_COMMENT_AUTHOR")
	target := render.TargetName(rep)
	key := r.s.commentKey
	if key == "" {
		key = strings.TrimSpace(ghc.Job + " " + target)
	}
	pr := PullRequest{Owner: owner, Repo: repo, Number: number, Author: author}
	what, err := newCommenter(apiURL, r.s.token, r.env.HTTPClient).Upsert(ctx, pr, Section{Key: key, Target: target, Report: rep})
	switch {
	case errors.Is(err, ErrNoAccess):
		r.gh.Noticef("mcp-fuzz: no permission to comment on pull request #%d (%v). A pull request from a fork gets a read-only token: "+
			"the results are in the job summary; to comment on fork pull requests, upload the JSON report as an artifact and comment "+
			"from a workflow_run workflow, or grant 'pull-requests: write'.", number, err)
	case err != nil:
		r.gh.Warningf("mcp-fuzz: commenting on pull request #%d failed: %v", number, err)
	default:
		fmt.Fprintf(r.env.Stdout, "mcp-fuzz: pull request #%d comment: %s\n", number, what)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown event)"
	}
	return s
}
