package comment

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

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

// requestTimeout bounds one request to the API, answer included, when hc
// has no timeout of its own; a variable for tests.
var requestTimeout = 60 * time.Second

// maxAnswer bounds the bytes read of one answer: a page of 100 comments of
// 65,536 characters each, JSON-escaped, fits.
const maxAnswer = 64 << 20

// errAnswerTooLarge is the error of reading past maxAnswer bytes of an answer.
var errAnswerTooLarge = fmt.Errorf("answer over %d bytes", maxAnswer)

// Connect returns the [API] at apiURL (GITHUB_API_URL; GitHub Enterprise
// Server's https://HOST/api/v3 works) and graphqlURL (GITHUB_GRAPHQL_URL;
// "" for [GraphQLURL] of apiURL), authenticated with token, over hc (nil:
// http.DefaultClient). A request that hc gives no timeout gets one minute,
// and an answer is read up to 64 MiB: a hanging or endless API is an error.
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
	gc := github.NewClient(bounded(hc)).WithAuthToken(token)
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

// bounded returns a copy of hc (nil: http.DefaultClient) with a timeout,
// when it has none, and answers cut off after maxAnswer bytes.
func bounded(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	if c.Timeout <= 0 {
		c.Timeout = requestTimeout
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = limitTransport{rt}
	return &c
}

// limitTransport cuts answers off after maxAnswer bytes.
type limitTransport struct{ rt http.RoundTripper }

func (l limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if resp != nil && resp.Body != nil {
		resp.Body = &limitBody{rc: resp.Body, left: maxAnswer}
	}
	return resp, err
}

// limitBody reads at most left bytes of rc, then fails with
// errAnswerTooLarge.
type limitBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errAnswerTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }
