package fakegithub_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
)

func client(t *testing.T, s *fakegithub.Server) *github.Client {
	t.Helper()
	gh := github.NewClient(nil)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	gh.BaseURL = u
	return gh
}

func TestListPagination(t *testing.T) {
	s := fakegithub.New(t)
	for i := range 75 {
		s.Seed("o", "r", 7, "someone", fmt.Sprint("c", i))
	}
	s.Seed("o", "r", 8, "someone", "other PR")
	gh := client(t, s)
	ctx := context.Background()

	var got []string
	opts := &github.IssueListCommentsOptions{}
	pages := 0
	for {
		cs, resp, err := gh.Issues.ListComments(ctx, "o", "r", 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(cs) > 30 {
			t.Fatalf("page of %d comments, want at most 30", len(cs))
		}
		if pages == 1 && resp.LastPage != 3 {
			t.Errorf("LastPage = %d, want 3", resp.LastPage)
		}
		for _, c := range cs {
			got = append(got, c.GetBody())
			if c.GetUser().GetLogin() != "someone" || c.GetCreatedAt().IsZero() || c.GetHTMLURL() == "" {
				t.Fatalf("bad comment %+v", c)
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if pages != 3 || len(got) != 75 || got[0] != "c0" || got[74] != "c74" {
		t.Fatalf("pages %d, %d comments, first %q last %q", pages, len(got), got[0], got[len(got)-1])
	}

	cs, resp, err := gh.Issues.ListComments(ctx, "o", "r", 7, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil || len(cs) != 75 || resp.NextPage != 0 {
		t.Fatalf("per_page=100: %d comments, next %d, %v", len(cs), resp.NextPage, err)
	}
	if n := s.Calls()["list"]; n != 4 {
		t.Errorf("list calls = %d, want 4", n)
	}
}

func TestCreateEditDelete(t *testing.T) {
	s := fakegithub.New(t)
	gh := client(t, s)
	ctx := context.Background()
	seeded := s.Seed("o", "r", 1, "alice", "hello")

	c, resp, err := gh.Issues.CreateComment(ctx, "o", "r", 1, &github.IssueComment{Body: github.String("mine")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if c.GetUser().GetLogin() != fakegithub.DefaultUser || c.GetID() <= seeded {
		t.Fatalf("created %+v", c)
	}
	s.SetUser("me")
	c2, _, err := gh.Issues.CreateComment(ctx, "o", "r", 1, &github.IssueComment{Body: github.String("second")})
	if err != nil || c2.GetUser().GetLogin() != "me" {
		t.Fatalf("create as me: %v %+v", err, c2)
	}

	e, _, err := gh.Issues.EditComment(ctx, "o", "r", c.GetID(), &github.IssueComment{Body: github.String("edited")})
	if err != nil || e.GetBody() != "edited" || !e.GetUpdatedAt().After(e.GetCreatedAt().Time) {
		t.Fatalf("edit: %v %+v", err, e)
	}
	if _, err := gh.Issues.DeleteComment(ctx, "o", "r", seeded); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Issues.DeleteComment(ctx, "o", "r", seeded); !isStatus(err, 404) {
		t.Fatalf("second delete: %v, want 404", err)
	}
	if _, _, err := gh.Issues.EditComment(ctx, "o", "other", c.GetID(), &github.IssueComment{Body: github.String("x")}); !isStatus(err, 404) {
		t.Fatalf("edit in another repo: %v, want 404", err)
	}

	got := s.Comments("o", "r", 1)
	if len(got) != 2 || got[0].Body != "edited" || got[1].Body != "second" || got[1].User != "me" {
		t.Fatalf("comments = %+v", got)
	}
	calls := s.Calls()
	if calls["create"] != 2 || calls["edit"] != 2 || calls["delete"] != 2 || calls["list"] != 0 {
		t.Fatalf("calls = %v", calls)
	}
}

func TestTooLong(t *testing.T) {
	s := fakegithub.New(t)
	gh := client(t, s)
	_, _, err := gh.Issues.CreateComment(context.Background(), "o", "r", 1, &github.IssueComment{Body: github.String(strings.Repeat("é", fakegithub.MaxBody+1))})
	if !isStatus(err, 422) {
		t.Fatalf("err = %v, want 422", err)
	}
	if _, _, err := gh.Issues.CreateComment(context.Background(), "o", "r", 1, &github.IssueComment{Body: github.String(strings.Repeat("é", fakegithub.MaxBody))}); err != nil {
		t.Fatal(err)
	}
}

func isStatus(err error, code int) bool {
	var e *github.ErrorResponse
	return errors.As(err, &e) && e.Response.StatusCode == code
}

func TestKnobs(t *testing.T) {
	s := fakegithub.New(t)
	gh := client(t, s)
	ctx := context.Background()
	body := &github.IssueComment{Body: github.String("x")}

	s.ReadOnly = true
	if _, _, err := gh.Issues.ListComments(ctx, "o", "r", 1, nil); err != nil {
		t.Fatalf("read-only list: %v", err)
	}
	_, _, err := gh.Issues.CreateComment(ctx, "o", "r", 1, body)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 403 || er.Message != "Resource not accessible by integration" {
		t.Fatalf("read-only create: %v", err)
	}
	s.SetReadOnly(false)

	s.SetNotFound(true)
	if _, _, err := gh.Issues.ListComments(ctx, "o", "r", 1, nil); !isStatus(err, 404) {
		t.Fatalf("not found: %v", err)
	}
	s.SetNotFound(false)

	s.SetRateLimitNext(2)
	for range 2 {
		_, resp, err := gh.Issues.ListComments(ctx, "o", "r", 1, nil)
		if err == nil || resp.StatusCode != 403 || resp.Header.Get("Retry-After") != "1" || resp.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("rate limited: %v", err)
		}
	}
	if _, _, err := gh.Issues.ListComments(ctx, "o", "r", 1, nil); err != nil {
		t.Fatalf("after rate limit: %v", err)
	}
	s.RateLimitStatus = 429
	s.SetRateLimitNext(1)
	if _, resp, _ := gh.Issues.ListComments(ctx, "o", "r", 1, nil); resp.StatusCode != 429 {
		t.Fatalf("status %d, want 429", resp.StatusCode)
	}
}

func TestConcurrent(t *testing.T) {
	s := fakegithub.New(t)
	s.SetDelay(func() time.Duration { return time.Duration(rand.IntN(20)) * time.Millisecond })
	gh := client(t, s)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := gh.Issues.CreateComment(context.Background(), "o", "r", 1, &github.IssueComment{Body: github.String(fmt.Sprint(i))}); err != nil {
				t.Error(err)
			}
			if _, _, err := gh.Issues.ListComments(context.Background(), "o", "r", 1, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(s.Comments("o", "r", 1)); n != 16 {
		t.Fatalf("%d comments, want 16", n)
	}
}

// TestIdentity: GET /user answers a user's login and 403 for a bot, as
// GitHub answers an installation token; GraphQL's viewer answers both.
func TestIdentity(t *testing.T) {
	s := fakegithub.New(t)
	gh := client(t, s)
	ctx := context.Background()
	_, resp, err := gh.Users.Get(ctx, "")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Errorf("GET /user as %s: %v", fakegithub.DefaultUser, err)
	}
	s.SetUser("alice")
	if u, _, err := gh.Users.Get(ctx, ""); err != nil || u.GetLogin() != "alice" {
		t.Errorf("GET /user as alice: %v, %v", u, err)
	}
	var out struct {
		Data struct {
			Viewer struct{ Login string } `json:"viewer"`
		} `json:"data"`
	}
	req, _ := gh.NewRequest("POST", s.URL+"graphql", map[string]string{"query": "query{viewer{login}}"})
	if _, err := gh.Do(ctx, req, &out); err != nil || out.Data.Viewer.Login != "alice" {
		t.Errorf("viewer: %+v, %v", out, err)
	}
	s.SetGraphQLDown(true)
	if _, err := gh.Do(ctx, req, &out); err == nil {
		t.Error("GraphQL down answered")
	}
	if c := s.Calls(); c["user"] != 2 || c["graphql"] != 2 {
		t.Errorf("calls %v", c)
	}
}

// TestMinimized: nodes(ids:) says which comments are minimized, null for
// an id that names none.
func TestMinimized(t *testing.T) {
	s := fakegithub.New(t)
	gh := client(t, s)
	a := s.Seed("o", "r", 1, "alice", "a")
	b := s.Seed("o", "r", 1, "alice", "b")
	s.Minimize(b)
	var out struct {
		Data struct {
			Nodes []*struct {
				ID          string `json:"id"`
				IsMinimized bool   `json:"isMinimized"`
			} `json:"nodes"`
		} `json:"data"`
	}
	ids := []string{fmt.Sprintf("IC_fake%d", a), fmt.Sprintf("IC_fake%d", b), "IC_nope"}
	req, _ := gh.NewRequest("POST", s.URL+"graphql", map[string]any{
		"query": "query($ids:[ID!]!){nodes(ids:$ids){... on IssueComment{id isMinimized}}}", "variables": map[string]any{"ids": ids}})
	if _, err := gh.Do(context.Background(), req, &out); err != nil {
		t.Fatal(err)
	}
	n := out.Data.Nodes
	if len(n) != 3 || n[0] == nil || n[0].IsMinimized || n[1] == nil || !n[1].IsMinimized || n[2] != nil {
		t.Errorf("nodes %+v", n)
	}
}
