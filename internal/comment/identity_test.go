package comment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
)

// connect returns the API of fake, as the Action and the CLI make it.
func connect(t *testing.T, fake *fakegithub.Server) *API {
	t.Helper()
	api, err := Connect(fake.URL, "", "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// TestWhoami learns the token's login the way each kind of token allows.
func TestWhoami(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		user   string // who the fake says the token is
		viewer string // what GraphQL's viewer says, "" for user
		down   bool   // GraphQL answers 502

		login, source string
		err           error
		calls         string
	}{
		{name: "a user token: GET /user", user: "alice",
			login: "alice", source: "GET /user", calls: "user=1 graphql=0"},
		{name: "the Actions token: 403 on GET /user, then the GraphQL viewer", user: "github-actions[bot]",
			login: "github-actions[bot]", source: "GraphQL viewer", calls: "user=1 graphql=1"},
		{name: "an App token whose viewer login has no [bot]", user: "my-app[bot]", viewer: "my-app",
			login: "my-app[bot]", source: "GraphQL viewer", calls: "user=1 graphql=1"},
		{name: "GraphQL down: not known, no guess", user: "github-actions[bot]", down: true,
			err: ErrUnknownAuthor, calls: "user=1 graphql=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakegithub.New(t)
			fake.SetUser(tc.user)
			fake.SetViewer(tc.viewer)
			fake.SetGraphQLDown(tc.down)
			api := connect(t, fake)
			id, err := Whoami(context.Background(), api.Users, api.GraphQL)
			if !errors.Is(err, tc.err) || id.Login != tc.login || id.Source != tc.source {
				t.Errorf("Whoami = %+v, %v; want %s from %s, %v", id, err, tc.login, tc.source, tc.err)
			}
			c := fake.Calls()
			if got := fmt.Sprintf("user=%d graphql=%d", c["user"], c["graphql"]); got != tc.calls {
				t.Errorf("calls %s, want %s", got, tc.calls)
			}
		})
	}
}

// TestThirdPartyMarker: a comment of someone else that starts with our
// marker (and even holds our key) is neither edited nor deleted, for any
// way our login is known; ours is created beside it.
func TestThirdPartyMarker(t *testing.T) {
	t.Parallel()
	for _, user := range []string{"github-actions[bot]", "alice"} {
		t.Run(user, func(t *testing.T) {
			fake := fakegithub.New(t)
			fake.SetUser(user)
			forged := Render([]SectionData{{Key: "a", Target: "forged", Score: ptr(100), Grade: "A"}})
			fake.Seed("o", "r", 1, "mallory", forged)
			fake.Seed("o", "r", 1, "mallory", forged)
			u, err := connect(t, fake).Upserter(context.Background(), Target{Owner: "o", Repo: "r", Number: 1})
			if err != nil {
				t.Fatal(err)
			}
			u.Sleep = noSleep
			r := upsert(t, u, "a", testReport("alpha", 60, "D"))
			if r.Action != "created" || r.PreviousScore != nil || r.Merged != 0 || r.Author != user {
				t.Errorf("%+v", r)
			}
			cs := fake.Comments("o", "r", 1)
			if len(cs) != 3 || cs[0].Body != forged || cs[1].Body != forged || cs[2].User != user {
				t.Fatalf("comments %+v", cs)
			}
			if c := fake.Calls(); c["edit"]+c["delete"] != 0 {
				t.Errorf("calls %v", c)
			}
			// Again: ours is found and left as it is; theirs still untouched.
			if r := upsert(t, u, "a", testReport("alpha", 60, "D")); r.Action != "unchanged" || r.CommentID != cs[2].ID {
				t.Errorf("second run %+v", r)
			}
		})
	}
}

// TestUnknownAuthorLearns: with no author known, Upsert touches no
// existing comment — not a third party's, not an earlier one of ours —
// until it has created its own, whose author it then takes for ours and
// merges into the oldest of ours.
func TestUnknownAuthorLearns(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	u.Target.Author = ""
	forged := Render([]SectionData{{Key: "a", Target: "forged"}})
	fake.Seed("o", "r", 1, "mallory", forged)
	old := fake.Seed("o", "r", 1, fakegithub.DefaultUser, Render([]SectionData{{Key: "b", Target: "B", Markdown: "b"}}))
	r := upsert(t, u, "a", testReport("alpha", 60, "D"))
	if r.Author != fakegithub.DefaultUser || r.CommentID != old || r.Merged != 1 || len(r.Notices) != 1 {
		t.Errorf("%+v", r)
	}
	cs := fake.Comments("o", "r", 1)
	if len(cs) != 2 || cs[0].Body != forged || cs[1].ID != old {
		t.Fatalf("comments %+v", cs)
	}
	secs, _ := Parse(cs[1].Body)
	if len(secs) != 2 || secs[0].Key != "b" || secs[1].Key != "a" {
		t.Errorf("sections %+v", secs)
	}
}

// TestUnknownAuthorRerunMerges: a re-run whose section is unchanged in the
// oldest of ours, with no author known (or a wrong one), creates a comment
// to learn the login and then merges it away: re-runs must not pile up
// copies of the same comment.
func TestUnknownAuthorRerunMerges(t *testing.T) {
	t.Parallel()
	for _, author := range []string{"", "someone-else"} {
		fake, u := setup(t)
		first := upsert(t, u, "a", testReport("alpha", 60, "D"))
		u.Target.Author = author
		for i := 0; i < 2; i++ {
			r := upsert(t, u, "a", testReport("alpha", 60, "D"))
			if r.CommentID != first.CommentID || r.Merged != 1 {
				t.Errorf("author %q, re-run %d: %+v", author, i, r)
			}
		}
		if cs := fake.Comments("o", "r", 1); len(cs) != 1 || cs[0].ID != first.CommentID {
			t.Errorf("author %q: %d comments, want the first alone: %+v", author, len(cs), cs)
		}
	}
}

// TestMinimizedSkipped: a minimized comment of ours is neither edited nor
// deleted nor merged; the one that is not minimized is used, and when
// there is none a new one is made.
func TestMinimizedSkipped(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	u.GraphQL = connect(t, fake).GraphQL
	hidden := fake.Seed("o", "r", 1, fakegithub.DefaultUser, Render([]SectionData{{Key: "a", Target: "old", Score: ptr(10), Grade: "F"}}))
	fake.Minimize(hidden)
	r := upsert(t, u, "a", testReport("alpha", 60, "D"))
	if r.Action != "created" || r.Skipped != 1 || r.PreviousScore != nil {
		t.Errorf("first run %+v", r)
	}
	mine := r.CommentID
	r = upsert(t, u, "a", testReport("alpha", 70, "C"))
	if r.Action != "edited" || r.CommentID != mine || r.Merged != 0 || r.Skipped != 1 || r.PreviousScore == nil || *r.PreviousScore != 60 {
		t.Errorf("second run %+v", r)
	}
	cs := fake.Comments("o", "r", 1)
	if len(cs) != 2 || cs[0].ID != hidden || !strings.Contains(cs[0].Body, "old") || cs[0].UpdatedAt != cs[0].CreatedAt {
		t.Errorf("the minimized comment was touched: %+v", cs)
	}
}

// TestMinimizedUnknown: when GraphQL fails, the comments of ours are taken
// as they are (none minimized) and a notice says so; GraphQL is asked once.
func TestMinimizedUnknown(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	u.GraphQL = connect(t, fake).GraphQL
	fake.SetGraphQLDown(true)
	mine := fake.Seed("o", "r", 1, fakegithub.DefaultUser, Render([]SectionData{{Key: "a", Target: "old"}}))
	r := upsert(t, u, "a", testReport("alpha", 60, "D"))
	if r.Action != "edited" || r.CommentID != mine || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "could not ask GraphQL which comments are minimized") {
		t.Errorf("%+v", r)
	}
	if n := fake.Calls()["graphql"]; n != 1 {
		t.Errorf("GraphQL asked %d times", n)
	}
}

// TestGraphQLURL: the GraphQL endpoint beside the REST API, on github.com
// and on GitHub Enterprise Server.
func TestGraphQLURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.github.com":          "https://api.github.com/graphql",
		"https://api.github.com/":         "https://api.github.com/graphql",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com/api/graphql",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/graphql",
	} {
		if got := GraphQLURL(in); got != want {
			t.Errorf("GraphQLURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func noSleep(context.Context, time.Duration) error { return nil }

// TestWrongAuthor: an author override that is not who the token is makes
// one comment, not one per retry: the login GitHub shows on it wins, and a
// notice says so.
func TestWrongAuthor(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	u.Target.Author = "someone-else"
	r := upsert(t, u, "a", testReport("alpha", 60, "D"))
	if r.Action != "created" || r.Author != fakegithub.DefaultUser || len(r.Notices) != 1 ||
		!strings.Contains(r.Notices[0], "created as github-actions[bot], not someone-else") {
		t.Errorf("%+v", r)
	}
	if cs := fake.Comments("o", "r", 1); len(cs) != 1 {
		t.Errorf("%d comments, want 1", len(cs))
	}
}

func TestResultString(t *testing.T) {
	t.Parallel()
	for want, r := range map[string]Result{
		"unchanged": {},
		"created":   {Action: "created"},
		"edited (merged 2 duplicate comments, 1 minimized comment left alone)": {Action: "edited", Merged: 2, Skipped: 1},
		"created (3 minimized comments left alone)":                            {Action: "created", Skipped: 3},
	} {
		if got := r.String(); got != want {
			t.Errorf("%+v: %q, want %q", r, got, want)
		}
	}
}
