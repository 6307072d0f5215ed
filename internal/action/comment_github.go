package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/comment"
)

// GitHubCommenter returns a [Commenter] that upserts through
// [comment.Upserter] and go-github, against apiURL (GITHUB_API_URL, so
// GitHub Enterprise Server works).
func GitHubCommenter(apiURL, token string, client *http.Client) Commenter {
	return githubCommenter{apiURL: apiURL, token: token, client: client}
}

type githubCommenter struct {
	apiURL, token string
	client        *http.Client
}

func (g githubCommenter) Upsert(ctx context.Context, pr PullRequest, sec Section) (string, error) {
	base, err := url.Parse(g.apiURL)
	if err != nil {
		return "", fmt.Errorf("GITHUB_API_URL %q: %w", g.apiURL, err)
	}
	gc := github.NewClient(g.client).WithAuthToken(g.token)
	gc.BaseURL = base
	u := &comment.Upserter{
		Client: gc.Issues,
		Target: comment.Target{Owner: pr.Owner, Repo: pr.Repo, Number: pr.Number, Author: pr.Author},
	}
	res, err := u.Upsert(ctx, comment.Section{Key: sec.Key, Target: sec.Target, Report: sec.Report})
	if errors.Is(err, comment.ErrNoAccess) {
		return "", fmt.Errorf("%w: %w", ErrNoAccess, err)
	}
	if err != nil {
		return "", err
	}
	what := res.Action
	if res.Merged > 0 {
		what += fmt.Sprintf(" (merged %d duplicate comments)", res.Merged)
	}
	return what, nil
}
