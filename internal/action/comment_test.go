package action

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-fuzz/mcp-fuzz/internal/comment"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// prEnv is the environment of a pull_request run on o/r#3, job fuzz.
func prEnv(t *testing.T) map[string]string {
	t.Helper()
	ws := t.TempDir()
	event := filepath.Join(ws, "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request":{"number":3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "o"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "s"),
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "o/r", "GITHUB_JOB": "fuzz",
		"INPUT_GITHUB-TOKEN": "tok", "PATH": os.Getenv("PATH"),
	}
}

// fakeComments is a [CommentClientFunc] that checks the API URL and token
// the action passes, and returns go-github's client of fake.
func fakeComments(t *testing.T, fake *fakegithub.Server, wantAPI string) CommentClientFunc {
	return func(apiURL, graphqlURL, token string, hc *http.Client) (*comment.API, error) {
		if apiURL != wantAPI || token != "tok" {
			t.Errorf("comment client for %s with token %q; want %s with tok", apiURL, token, wantAPI)
		}
		return comment.Connect(fake.URL, "", token, hc)
	}
}

// sections returns the sections of the one comment on o/r#3.
func sections(t *testing.T, fake *fakegithub.Server) []comment.SectionData {
	t.Helper()
	cs := fake.Comments("o", "r", 3)
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
	secs, ok := comment.Parse(cs[0].Body)
	if !ok {
		t.Fatalf("not an mcp-fuzz comment:\n%s", cs[0].Body)
	}
	return secs
}

// runDemo runs the action in-process against the demo server (this test
// binary cannot serve it, so the mcp-fuzz binary is built once).
func runDemo(t *testing.T, env map[string]string, newClient CommentClientFunc) (int, string) {
	t.Helper()
	bin := mcpFuzzBinary(t)
	env["INPUT_COMMAND"] = bin + " demo-server"
	env["INPUT_TOOLS"] = "lookup_user,get_weather"
	env["INPUT_TIMEOUT"] = "1"
	var out bytes.Buffer
	code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, CommentClient: newClient})
	return code, out.String()
}

// TestCommentOnPullRequest runs the whole action on a pull request: the
// comment gets a section for the job and the target.
func TestCommentOnPullRequest(t *testing.T) {
	t.Parallel()
	fake := fakegithub.New(t)
	code, out := runDemo(t, prEnv(t), fakeComments(t, fake, "https://api.github.com/"))
	// The demo server's crashes miss the default gate: the comment is
	// posted all the same.
	if code != ExitGate || !strings.Contains(out, "mcp-fuzz: pull request #3 comment: created\n") ||
		!strings.Contains(out, "::error::mcp-fuzz: gate missed: 7 crash findings (the default gate fail-on security,crash,hang,protocol,leak; fail-on none turns it off)") {
		t.Fatalf("exit %d, want %d with the comment created and the default gate missed\n%s", code, ExitGate, out)
	}
	secs := sections(t, fake)
	if len(secs) != 1 {
		t.Fatalf("sections %+v", secs)
	}
	s := secs[0]
	if !strings.HasPrefix(s.Key, "fuzz ") || s.Target == "" || !strings.Contains(s.Key, s.Target) || s.Score == nil {
		t.Errorf("section key %q target %q score %v: want the job name plus the target, graded", s.Key, s.Target, s.Score)
	}
}

// TestCommentNoAccess checks that a read-only token (a fork's pull
// request) gets a notice, and the job passes.
func TestCommentNoAccess(t *testing.T) {
	t.Parallel()
	fake := fakegithub.New(t)
	fake.ReadOnly = true
	env := prEnv(t)
	env["INPUT_FAIL-ON"] = "none" // the demo's crashes would miss the default gate
	code, out := runDemo(t, env, fakeComments(t, fake, "https://api.github.com/"))
	if code != ExitOK || !strings.Contains(out, "::notice::mcp-fuzz: no permission to comment on pull request #3 (creating comment: no access") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// commentReport is what runner.comment gets from a run.
func commentReport() *report.Report {
	score, grade := 80, "C"
	rep := &report.Report{Graded: true, Score: &score, Grade: &grade,
		Target: report.Target{Transport: "stdio", Command: "./srv"}, Server: report.Server{Name: "srv", Version: "1"}}
	rep.Normalize()
	return rep
}

// runComment runs only the commenting step of the action, with the inputs
// and environment in env.
func runComment(t *testing.T, env map[string]string, newClient CommentClientFunc) string {
	t.Helper()
	var out bytes.Buffer
	getenv := func(k string) string { return env[k] }
	gh := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(&out))
	s, err := readInputs(gh.GetInput, env["GITHUB_WORKSPACE"])
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{env: Env{Getenv: getenv, Stdout: &out, HTTPClient: http.DefaultClient, CommentClient: newClient}, gh: gh, s: s}
	r.comment(context.Background(), commentReport())
	return out.String()
}

// failing is a client whose every call fails.
type failing struct{ comment.Client }

func (failing) ListComments(context.Context, string, string, int, *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	return nil, nil, errors.New("boom")
}

func TestCommentModes(t *testing.T) {
	t.Parallel()
	const api = "https://api.github.com/"
	for _, tc := range []struct {
		name    string
		env     map[string]string
		wantAPI string
		client  func(*testing.T, *fakegithub.Server, string) CommentClientFunc

		out  string // in the output
		keys []string
	}{
		{name: "comment-key", env: map[string]string{"INPUT_COMMENT-KEY": "mine"},
			out: "mcp-fuzz: pull request #3 comment: created\n", keys: []string{"mine"}},
		{name: "default key: the job and the target",
			out: "mcp-fuzz: pull request #3 comment: created\n", keys: []string{"fuzz srv 1 (./srv)"}},
		{name: "off", env: map[string]string{"INPUT_COMMENT": "off"}},
		{name: "push", env: map[string]string{"GITHUB_EVENT_NAME": "push", "INPUT_COMMENT": "always"},
			out: "::notice::mcp-fuzz: comment is \"always\", but this push run has no pull request: job summary only"},
		{name: "auto on push says nothing", env: map[string]string{"GITHUB_EVENT_NAME": "push"}},
		{name: "no token", env: map[string]string{"INPUT_GITHUB-TOKEN": ""},
			out: "::notice::mcp-fuzz: no github-token: no pull request comment"},
		{name: "GHES API URL", env: map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}, wantAPI: "https://ghe.example.com/api/v3/",
			out: "mcp-fuzz: pull request #3 comment: created\n", keys: []string{"fuzz srv 1 (./srv)"}},
		{name: "the client cannot be made",
			client: func(*testing.T, *fakegithub.Server, string) CommentClientFunc {
				return func(string, string, string, *http.Client) (*comment.API, error) { return nil, errors.New("bad URL") }
			},
			out: "::warning::mcp-fuzz: commenting on pull request #3 failed: bad URL"},
		{name: "other failure",
			client: func(*testing.T, *fakegithub.Server, string) CommentClientFunc {
				return func(string, string, string, *http.Client) (*comment.API, error) {
					return &comment.API{Comments: failing{}}, nil
				}
			},
			out: "::warning::mcp-fuzz: commenting on pull request #3 failed: listing comments: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakegithub.New(t)
			env := prEnv(t)
			for k, v := range tc.env {
				env[k] = v
			}
			newClient := fakeComments
			if tc.client != nil {
				newClient = tc.client
			}
			out := runComment(t, env, newClient(t, fake, cmp.Or(tc.wantAPI, api)))
			if !strings.Contains(out, tc.out) {
				t.Errorf("output lacks %q:\n%s", tc.out, out)
			}
			if tc.keys == nil {
				if c := fake.Calls(); len(c) != 0 {
					t.Errorf("calls %v, want none", c)
				}
				return
			}
			var keys []string
			for _, s := range sections(t, fake) {
				keys = append(keys, s.Key)
			}
			if strings.Join(keys, "\n") != strings.Join(tc.keys, "\n") {
				t.Errorf("sections %q, want %q", keys, tc.keys)
			}
		})
	}
}

// TestConnect checks the default client: go-github against the API URL,
// authenticated with the token, GraphQL beside it.
func TestConnect(t *testing.T) {
	t.Parallel()
	fake := fakegithub.New(t)
	var auth []string
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		auth = append(auth, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		return http.DefaultTransport.RoundTrip(r)
	})}
	api, err := comment.Connect(fake.URL, "", "tok", hc)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.Comments.ListComments(context.Background(), "o", "r", 3, nil); err != nil {
		t.Fatal(err)
	}
	id, err := comment.Whoami(context.Background(), api.Users, api.GraphQL)
	if err != nil || id.Login != fakegithub.DefaultUser {
		t.Errorf("whoami = %+v, %v", id, err)
	}
	want := "GET /repos/o/r/issues/3/comments Bearer tok\nGET /user Bearer tok\nPOST /graphql Bearer tok"
	if got := strings.Join(auth, "\n"); got != want {
		t.Errorf("requests:\n%s\nwant:\n%s", got, want)
	}
	if _, err := comment.Connect("http://[::1", "", "tok", hc); err == nil || !strings.Contains(err.Error(), "GITHUB_API_URL") {
		t.Errorf("bad URL: %v", err)
	}
}

// TestCommentOnlyOurs runs the commenting step on a pull request where a
// third party posted a comment that starts with our marker: it is neither
// edited nor deleted, and our own comment is created. A minimized comment
// of ours is left alone too.
func TestCommentOnlyOurs(t *testing.T) {
	t.Parallel()
	fake := fakegithub.New(t)
	forged := comment.Render([]comment.SectionData{{Key: "fuzz srv 1 (./srv)", Target: "forged"}})
	mallory := fake.Seed("o", "r", 3, "mallory", forged)
	hidden := fake.Seed("o", "r", 3, fakegithub.DefaultUser, forged)
	fake.Minimize(hidden)
	out := runComment(t, prEnv(t), fakeComments(t, fake, "https://api.github.com/"))
	if !strings.Contains(out, "mcp-fuzz: pull request #3 comment: created (1 minimized comment left alone)\n") {
		t.Errorf("output:\n%s", out)
	}
	cs := fake.Comments("o", "r", 3)
	if len(cs) != 3 || cs[0].ID != mallory || cs[0].Body != forged || cs[1].ID != hidden || cs[1].Body != forged {
		t.Fatalf("the third party's or the minimized comment was touched: %+v", cs)
	}
	if c := fake.Calls(); c["edit"] != 0 || c["delete"] != 0 {
		t.Errorf("calls %v, want no edit or delete", c)
	}
	if secs, ok := comment.Parse(cs[2].Body); !ok || cs[2].User != fakegithub.DefaultUser || len(secs) != 1 || secs[0].Target == "forged" {
		t.Errorf("our comment: %+v", cs[2])
	}
}

// TestCommentUnknownAuthor: when neither GET /user nor GraphQL says who
// the token is, a notice says so and a new comment is made; the third
// party's comment with our marker is not touched.
func TestCommentUnknownAuthor(t *testing.T) {
	t.Parallel()
	fake := fakegithub.New(t)
	fake.SetGraphQLDown(true)
	forged := comment.Render([]comment.SectionData{{Key: "fuzz srv 1 (./srv)", Target: "forged"}})
	fake.Seed("o", "r", 3, "mallory", forged)
	out := runComment(t, prEnv(t), fakeComments(t, fake, "https://api.github.com/"))
	for _, want := range []string{
		"::notice::mcp-fuzz: cannot tell which login the token comments as: GET /user: ",
		"::notice::mcp-fuzz: pull request #3 comment: the token's login was not known: created a new comment rather than edit an existing one; it is by github-actions[bot], whose comments are taken for ours for the rest of this run",
		"mcp-fuzz: pull request #3 comment: created\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	cs := fake.Comments("o", "r", 3)
	if len(cs) != 2 || cs[0].Body != forged || fake.Calls()["edit"] != 0 {
		t.Errorf("comments %+v, calls %v", cs, fake.Calls())
	}
}

// TestCommentAuthorOverride: MCP_FUZZ_COMMENT_AUTHOR names our login
// without asking GitHub.
func TestCommentAuthorOverride(t *testing.T) {
	t.Parallel()
	fake := fakegithub.New(t)
	fake.SetUser("robot")
	env := prEnv(t)
	env["MCP_FUZZ_COMMENT_AUTHOR"] = "robot"
	runComment(t, env, fakeComments(t, fake, "https://api.github.com/"))
	out := runComment(t, env, fakeComments(t, fake, "https://api.github.com/"))
	if !strings.Contains(out, "comment: unchanged") || fake.Calls()["user"] != 0 {
		t.Errorf("calls %v\n%s", fake.Calls(), out)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
