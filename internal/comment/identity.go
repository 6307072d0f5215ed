package comment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"
)

// ErrUnknownAuthor means neither REST nor GraphQL said which login the
// token's comments are authored by. [Upserter] then touches no existing
// comment: it creates one.
var ErrUnknownAuthor = errors.New("cannot tell which login the token comments as")

// Identity is the login our comments are authored by, as the REST API shows
// it (a bot's with its "[bot]" suffix), and how it was learned.
type Identity struct {
	Login  string
	Source string // "GET /user", "GraphQL viewer", or what the caller set
}

// UsersClient is go-github's authenticated-user call;
// *github.UsersService satisfies it.
type UsersClient interface {
	Get(ctx context.Context, user string) (*github.User, *github.Response, error)
}

var _ UsersClient = (*github.UsersService)(nil)

// Whoami learns the login the token's comments are authored by.
//
// It asks REST GET /user first, which answers for a user's token (a personal
// access token, an OAuth token such as gh's). An installation token — the
// Actions GITHUB_TOKEN, a GitHub App's — gets 403 "Resource not accessible by
// integration" there, so it then asks GraphQL viewer { login }, which
// answers for installation tokens too. After such a 403 the login is a bot's:
// REST shows its comments as "github-actions[bot]" or "<app-slug>[bot]", so
// Whoami adds the "[bot]" suffix when the viewer's login lacks it (GraphQL
// shows bot logins without it elsewhere). gql may be nil.
//
// When neither answers it returns an error wrapping [ErrUnknownAuthor], and
// does not guess: an App token taken for github-actions[bot] would edit the
// comments of another workflow's bot.
func Whoami(ctx context.Context, users UsersClient, gql Querier) (Identity, error) {
	var restErr error
	integration := false
	if users != nil {
		u, resp, err := users.Get(ctx, "")
		if err == nil && u.GetLogin() != "" {
			return Identity{Login: u.GetLogin(), Source: "GET /user"}, nil
		}
		if err == nil {
			err = errors.New("no login in the answer")
		}
		restErr = fmt.Errorf("GET /user: %w", err)
		integration = resp != nil && resp.StatusCode == http.StatusForbidden
	} else {
		restErr = errors.New("GET /user: not asked")
	}
	if gql == nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrUnknownAuthor, restErr)
	}
	login, err := viewerLogin(ctx, gql)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w; GraphQL viewer: %w", ErrUnknownAuthor, restErr, err)
	}
	if integration && !strings.HasSuffix(login, "[bot]") {
		login += "[bot]"
	}
	return Identity{Login: login, Source: "GraphQL viewer"}, nil
}

func viewerLogin(ctx context.Context, gql Querier) (string, error) {
	var data struct {
		Viewer struct {
			Login string `json:"login"`
		} `json:"viewer"`
	}
	if err := gql.Query(ctx, "query{viewer{login}}", nil, &data); err != nil {
		return "", err
	}
	if data.Viewer.Login == "" {
		return "", errors.New("no login in the answer")
	}
	return data.Viewer.Login, nil
}

// sameLogin reports whether two logins name the same account: GitHub logins
// are case-insensitive.
func sameLogin(a, b string) bool { return a != "" && strings.EqualFold(a, b) }
