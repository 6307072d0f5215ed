package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// DefaultUser is the login that owns comments created through the API until
// [Server.SetUser] changes it.
const DefaultUser = "github-actions[bot]"

// MaxBody is GitHub's limit on a comment body, in characters; longer bodies
// get 422, as on GitHub.
const MaxBody = 65536

// Comment is one stored issue comment.
type Comment struct {
	ID        int64
	Body      string
	User      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Server is a fake GitHub API. Its exported knobs may be set before the first
// request, or at any time through the matching setters, which hold the lock.
type Server struct {
	// URL is the base URL, ending in "/", for github.Client.BaseURL or
	// GITHUB_API_URL.
	URL string

	// PerPage is the default page size of list calls (30); ?per_page
	// overrides it, up to 100.
	PerPage int
	// Delay, when set, is called once per request and the request sleeps
	// that long before it is handled. It may be called concurrently.
	Delay func() time.Duration
	// ReadOnly makes every write answer 403 "Resource not accessible by
	// integration", like a fork PR's token.
	ReadOnly bool
	// NotFound makes every request answer 404.
	NotFound bool
	// RateLimitNext makes the next N requests answer RateLimitStatus with
	// "Retry-After: 1" and "X-RateLimit-Remaining: 0". No X-RateLimit-Reset
	// is sent, so go-github does not refuse the following requests itself.
	RateLimitNext int
	// RateLimitStatus is the status of rate-limited answers: 403 (default)
	// or 429.
	RateLimitStatus int

	srv       *httptest.Server
	mu        sync.Mutex
	user      string
	viewer    string // GraphQL viewer login, "" for user
	gqlDown   bool
	minimized map[int64]bool
	nextID    int64
	clock     time.Time
	comments  []*stored
	calls     map[string]int
}

type stored struct {
	owner, repo string
	number      int
	Comment
}

// New starts a fake server that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		PerPage:   30,
		user:      DefaultUser,
		nextID:    1000,
		clock:     time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		calls:     map[string]int{},
		minimized: map[int64]bool{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/"
	t.Cleanup(s.srv.Close)
	return s
}

// SetUser sets the login that owns comments created through the API.
func (s *Server) SetUser(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = login
}

// SetViewer sets the login GraphQL's viewer query answers; "" (the
// default) answers the user of [Server.SetUser]. GitHub's own viewer for an
// installation token has the "[bot]" suffix; set a bare login to see that a
// client copes without it.
func (s *Server) SetViewer(login string) { s.mu.Lock(); s.viewer = login; s.mu.Unlock() }

// SetGraphQLDown makes every GraphQL request answer 502, as a GitHub
// Enterprise Server without the GraphQL API, or a proxy that blocks it, might.
func (s *Server) SetGraphQLDown(v bool) { s.mu.Lock(); s.gqlDown = v; s.mu.Unlock() }

// Minimize marks comment id as minimized (hidden), which only the GraphQL
// API shows (IssueComment.isMinimized), as on GitHub.
func (s *Server) Minimize(id int64) { s.mu.Lock(); s.minimized[id] = true; s.mu.Unlock() }

// SetReadOnly sets [Server.ReadOnly] under the lock.
func (s *Server) SetReadOnly(v bool) { s.mu.Lock(); s.ReadOnly = v; s.mu.Unlock() }

// SetNotFound sets [Server.NotFound] under the lock.
func (s *Server) SetNotFound(v bool) { s.mu.Lock(); s.NotFound = v; s.mu.Unlock() }

// SetRateLimitNext sets [Server.RateLimitNext] under the lock.
func (s *Server) SetRateLimitNext(n int) { s.mu.Lock(); s.RateLimitNext = n; s.mu.Unlock() }

// SetPerPage sets [Server.PerPage] under the lock.
func (s *Server) SetPerPage(n int) { s.mu.Lock(); s.PerPage = n; s.mu.Unlock() }

// SetDelay sets [Server.Delay] under the lock.
func (s *Server) SetDelay(f func() time.Duration) { s.mu.Lock(); s.Delay = f; s.mu.Unlock() }

// Seed stores a pre-existing comment by user on issue or pull request number
// and returns its id.
func (s *Server) Seed(owner, repo string, number int, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(owner, repo, number, user, body).ID
}

// Comments returns the comments on issue or pull request number, oldest first.
func (s *Server) Comments(owner, repo string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.list(owner, repo, number) {
		out = append(out, c.Comment)
	}
	return out
}

// Calls returns how many requests each route received, by "list",
// "create", "edit", "delete", "user" (GET /user) and "graphql", counting
// requests that were refused.
func (s *Server) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// add stores a comment; s.mu is held. Each comment is one second younger
// than the one before, so creation order is also time order.
func (s *Server) add(owner, repo string, number int, user, body string) *stored {
	s.nextID++
	s.clock = s.clock.Add(time.Second)
	c := &stored{owner: owner, repo: repo, number: number, Comment: Comment{
		ID: s.nextID, Body: body, User: user, CreatedAt: s.clock, UpdatedAt: s.clock,
	}}
	s.comments = append(s.comments, c)
	return c
}

// list returns the comments of one issue, oldest first; s.mu is held.
func (s *Server) list(owner, repo string, number int) []*stored {
	var out []*stored
	for _, c := range s.comments {
		if c.owner == owner && c.repo == repo && c.number == number {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *Server) find(owner, repo string, id int64) (int, *stored) {
	for i, c := range s.comments {
		if c.ID == id && c.owner == owner && c.repo == repo {
			return i, c
		}
	}
	return -1, nil
}

type userJSON struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	Type  string `json:"type"`
}

type commentJSON struct {
	ID        int64    `json:"id"`
	NodeID    string   `json:"node_id"`
	URL       string   `json:"url"`
	HTMLURL   string   `json:"html_url"`
	IssueURL  string   `json:"issue_url"`
	Body      string   `json:"body"`
	User      userJSON `json:"user"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

func (s *Server) toJSON(c *stored) commentJSON {
	typ := "User"
	if strings.HasSuffix(c.User, "[bot]") {
		typ = "Bot"
	}
	return commentJSON{
		ID:        c.ID,
		NodeID:    fmt.Sprintf("IC_fake%d", c.ID),
		URL:       fmt.Sprintf("%srepos/%s/%s/issues/comments/%d", s.URL, c.owner, c.repo, c.ID),
		HTMLURL:   fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", c.owner, c.repo, c.number, c.ID),
		IssueURL:  fmt.Sprintf("%srepos/%s/%s/issues/%d", s.URL, c.owner, c.repo, c.number),
		Body:      c.Body,
		User:      userJSON{Login: c.User, ID: int64(len(c.User)), Type: typ},
		CreatedAt: c.CreatedAt.Format(time.RFC3339),
		UpdatedAt: c.UpdatedAt.Format(time.RFC3339),
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
	})
}

// route names a request: the call, and the path values it names.
func route(r *http.Request) (call, owner, repo string, number int, id int64, ok bool) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) != 6 || parts[0] != "repos" || parts[3] != "issues" {
		return "", "", "", 0, 0, false
	}
	owner, repo = parts[1], parts[2]
	switch {
	case parts[4] == "comments":
		n, err := strconv.ParseInt(parts[5], 10, 64)
		if err != nil {
			return "", "", "", 0, 0, false
		}
		switch r.Method {
		case http.MethodPatch:
			return "edit", owner, repo, 0, n, true
		case http.MethodDelete:
			return "delete", owner, repo, 0, n, true
		}
	case parts[5] == "comments":
		n, err := strconv.Atoi(parts[4])
		if err != nil {
			return "", "", "", 0, 0, false
		}
		switch r.Method {
		case http.MethodGet:
			return "list", owner, repo, n, 0, true
		case http.MethodPost:
			return "create", owner, repo, n, 0, true
		}
	}
	return "", "", "", 0, 0, false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	delay := s.Delay
	s.mu.Unlock()
	if delay != nil {
		if d := delay(); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
	}

	switch r.URL.Path {
	case "/user":
		s.serveUser(w, r)
		return
	case "/graphql":
		s.serveGraphQL(w, r)
		return
	}

	var in struct {
		Body *string `json:"body"`
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPatch {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			writeError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	call, owner, repo, number, id, ok := route(r)
	if ok {
		s.calls[call]++
	}
	switch {
	case s.RateLimitNext > 0:
		s.RateLimitNext--
		status := s.RateLimitStatus
		if status == 0 {
			status = http.StatusForbidden
		}
		w.Header().Set("Retry-After", "1")
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "0")
		writeError(w, status, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
		return
	case s.NotFound || !ok:
		writeError(w, http.StatusNotFound, "Not Found")
		return
	case s.ReadOnly && call != "list":
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	if (call == "create" || call == "edit") && in.Body == nil {
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.")
		return
	}
	if in.Body != nil && utf8.RuneCountInString(*in.Body) > MaxBody {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
		return
	}

	switch call {
	case "list":
		s.serveList(w, r, owner, repo, number)
	case "create":
		c := s.add(owner, repo, number, s.user, *in.Body)
		writeJSON(w, http.StatusCreated, s.toJSON(c))
	case "edit":
		_, c := s.find(owner, repo, id)
		if c == nil {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		s.clock = s.clock.Add(time.Second)
		c.Body, c.UpdatedAt = *in.Body, s.clock
		writeJSON(w, http.StatusOK, s.toJSON(c))
	case "delete":
		i, c := s.find(owner, repo, id)
		if c == nil {
			writeError(w, http.StatusNotFound, "Not Found")
			return
		}
		s.comments = append(s.comments[:i], s.comments[i+1:]...)
		w.WriteHeader(http.StatusNoContent)
	}
}

// serveList answers one page of comments with RFC 5988 Link headers.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, owner, repo string, number int) {
	q := r.URL.Query()
	perPage := s.PerPage
	if perPage <= 0 {
		perPage = 30
	}
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = v
	}
	perPage = min(perPage, 100)
	page := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	all := s.list(owner, repo, number)
	last := max((len(all)+perPage-1)/perPage, 1)
	out := []commentJSON{}
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		out = append(out, s.toJSON(all[i]))
	}
	link := func(p int, rel string) string {
		u := url.URL{Path: strings.TrimPrefix(r.URL.Path, "/")}
		v := url.Values{}
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(perPage))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s%s>; rel=%q", s.URL, u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(min(page-1, last), "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	writeJSON(w, http.StatusOK, out)
}

// serveUser answers GET /user: the login of a user token; 403 for an
// installation token (a login ending in "[bot]"), as GitHub answers the
// Actions GITHUB_TOKEN and GitHub App tokens.
func (s *Server) serveUser(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["user"]++
	switch {
	case s.NotFound || r.Method != http.MethodGet:
		writeError(w, http.StatusNotFound, "Not Found")
	case strings.HasSuffix(s.user, "[bot]"):
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
			"status":            "403",
		})
	default:
		writeJSON(w, http.StatusOK, userJSON{Login: s.user, ID: int64(len(s.user)), Type: "User"})
	}
}

// serveGraphQL answers the two GraphQL queries mcp-fuzz makes: the viewer's
// login, and nodes(ids:) of issue comments with isMinimized. Anything else
// gets a GraphQL error.
func (s *Server) serveGraphQL(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	err := json.NewDecoder(r.Body).Decode(&in)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["graphql"]++
	switch {
	case s.NotFound || r.Method != http.MethodPost:
		writeError(w, http.StatusNotFound, "Not Found")
		return
	case s.gqlDown:
		writeError(w, http.StatusBadGateway, "Bad Gateway")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	gqlError := func(msg string) {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]string{{"message": msg}}})
	}
	switch {
	case strings.Contains(in.Query, "viewer"):
		login := s.viewer
		if login == "" {
			login = s.user
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]string{"login": login}}})
	case strings.Contains(in.Query, "nodes("):
		ids, _ := in.Variables["ids"].([]any)
		if len(ids) > 100 {
			gqlError("You may not request more than 100 nodes")
			return
		}
		nodes := []any{}
		for _, v := range ids {
			id, _ := v.(string)
			n, err := strconv.ParseInt(strings.TrimPrefix(id, "IC_fake"), 10, 64)
			var c *stored
			for _, sc := range s.comments {
				if err == nil && sc.ID == n {
					c = sc
				}
			}
			if c == nil {
				nodes = append(nodes, nil)
				continue
			}
			reason := ""
			if s.minimized[c.ID] {
				reason = "outdated"
			}
			nodes = append(nodes, map[string]any{"id": id, "databaseId": c.ID, "isMinimized": s.minimized[c.ID], "minimizedReason": reason})
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"nodes": nodes}})
	default:
		gqlError("fakegithub: unsupported query")
	}
}

// NewRefusing is a hostile GitHub API whose every refusal says message:
// GET /user answers 403, GraphQL an error, other GETs an empty list, and
// every write 422. It is closed when the test ends.
func NewRefusing(t testing.TB, message string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/user":
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
		case r.URL.Path == "/graphql":
			_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"message": message}}})
		case r.Method == http.MethodGet:
			_, _ = w.Write([]byte("[]"))
		default:
			w.WriteHeader(http.StatusUnprocessableEntity)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
