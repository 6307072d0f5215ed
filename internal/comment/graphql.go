package comment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// Querier runs one GraphQL query and decodes the answer's data into data.
// [*GraphQL] is the one over go-github's client.
type Querier interface {
	Query(ctx context.Context, query string, vars map[string]any, data any) error
}

// maxGraphQLAnswer bounds the bytes read of one GraphQL answer.
const maxGraphQLAnswer = 1 << 20

// GraphQL asks GitHub's GraphQL API what the REST API does not say: the
// login of an installation token ([Whoami]) and whether a comment is
// minimized ([Minimized]). It posts to URL through Client, so with Client's
// token and transport; each query is bounded by Timeout (default 10 s) and
// its answer by 1 MiB.
type GraphQL struct {
	Client  *github.Client
	URL     string
	Timeout time.Duration
}

var _ Querier = (*GraphQL)(nil)

// GraphQLURL is the GraphQL endpoint that goes with the REST API at apiURL:
// https://api.github.com/graphql, or on GitHub Enterprise Server
// https://HOST/api/graphql for https://HOST/api/v3. In Actions,
// GITHUB_GRAPHQL_URL says it.
func GraphQLURL(apiURL string) string {
	u := strings.TrimSuffix(apiURL, "/")
	if strings.HasSuffix(u, "/api/v3") {
		return strings.TrimSuffix(u, "/v3") + "/graphql"
	}
	return u + "/graphql"
}

// Query implements [Querier]. An answer with errors, and one with no data,
// is an error.
func (g *GraphQL) Query(ctx context.Context, query string, vars map[string]any, data any) error {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	u, err := url.Parse(g.URL)
	if err != nil {
		return fmt.Errorf("GraphQL URL %q: %w", g.URL, err)
	}
	req, err := g.Client.NewRequest(http.MethodPost, u.String(), json.RawMessage(body))
	if err != nil {
		return err
	}
	resp, err := g.Client.BareDo(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLAnswer+1))
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if len(raw) > maxGraphQLAnswer {
		return fmt.Errorf("answer over %d bytes", maxGraphQLAnswer)
	}
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&out); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	if len(out.Errors) > 0 {
		msgs := make([]string, 0, len(out.Errors))
		for _, e := range out.Errors {
			msgs = append(msgs, e.Message)
		}
		return fmt.Errorf("GraphQL errors: %s", strings.Join(msgs, "; "))
	}
	if len(out.Data) == 0 || string(out.Data) == "null" {
		return errors.New("no data in the answer")
	}
	return json.Unmarshal(out.Data, data)
}

// maxNodes is how many node ids GitHub takes in one nodes(ids:) query.
const maxNodes = 100

// Minimized returns the node ids among ids of comments that are minimized
// (hidden as outdated, off-topic, …). The REST API's issue comments do not
// say; GraphQL's IssueComment.isMinimized does. It asks in batches of 100,
// stopping at the first error.
func Minimized(ctx context.Context, q Querier, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), maxNodes)]
		ids = ids[len(batch):]
		var data struct {
			Nodes []*struct {
				ID          string `json:"id"`
				IsMinimized bool   `json:"isMinimized"`
			} `json:"nodes"`
		}
		err := q.Query(ctx, "query($ids:[ID!]!){nodes(ids:$ids){... on IssueComment{id isMinimized}}}", map[string]any{"ids": batch}, &data)
		if err != nil {
			return out, err
		}
		for _, n := range data.Nodes {
			if n != nil && n.IsMinimized {
				out[n.ID] = true
			}
		}
	}
	return out, nil
}
