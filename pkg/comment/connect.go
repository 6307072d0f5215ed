package comment

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v62/github"
)

// API is what commenting needs of GitHub: the issue comment calls, the
// authenticated user (for [Whoami]) and GraphQL (for [Whoami] and
// [Minimized]). Users and GraphQL may be nil. [Connect] makes one over
// go-github.
type API struct {
	Comments Client
	Users    UsersClient
	GraphQL  Querier
}

// Connect returns the [API] at apiURL (GITHUB_API_URL; GitHub Enterprise
// Server's https://HOST/api/v3 works) and graphqlURL (GITHUB_GRAPHQL_URL;
// "" for [GraphQLURL] of apiURL), authenticated with token, over hc (nil:
// http.DefaultClient).
func Connect(apiURL, graphqlURL, token string, hc *http.Client) (*API, error) {
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	base, err := url.Parse(apiURL)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", apiURL, err)
	}
	if graphqlURL == "" {
		graphqlURL = GraphQLURL(apiURL)
	}
	if _, err := url.Parse(graphqlURL); err != nil {
		return nil, fmt.Errorf("GITHUB_GRAPHQL_URL %q: %w", graphqlURL, err)
	}
	gc := github.NewClient(hc).WithAuthToken(token)
	gc.BaseURL = base
	return &API{Comments: gc.Issues, Users: gc.Users, GraphQL: &GraphQL{Client: gc, URL: graphqlURL}}, nil
}

// Upserter returns an [Upserter] for t. When t.Author is "" (no override
// such as MCP_FUZZ_COMMENT_AUTHOR) it learns the token's login with
// [Whoami]; when that fails it returns the Upserter all the same, which
// then creates a comment rather than touch an existing one, and the error
// (wrapping [ErrUnknownAuthor]) for a notice.
func (a *API) Upserter(ctx context.Context, t Target) (*Upserter, error) {
	var err error
	if t.Author == "" {
		var id Identity
		id, err = Whoami(ctx, a.Users, a.GraphQL)
		t.Author = id.Login
	}
	return &Upserter{Client: a.Comments, Target: t, GraphQL: a.GraphQL}, err
}
