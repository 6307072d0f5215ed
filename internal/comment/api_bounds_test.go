package comment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// loopPages answers every list call with one comment of someone else and a
// next page that a hostile API chose: a cycle back to page 1, or one more
// page forever.
type loopPages struct {
	fakeClient
	next  func(page int) int
	lists int
}

func (l *loopPages) ListComments(_ context.Context, _, _ string, _ int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	l.lists++
	page := max(opts.Page, 1)
	c := issueComment(int64(page), "hello")
	c.User = &github.User{Login: github.String("someone-else")}
	return []*github.IssueComment{c}, &github.Response{Response: &http.Response{StatusCode: 200}, NextPage: l.next(page)}, nil
}

// TestHostilePagination checks that a Link header that cycles back to an
// earlier page, or that never ends, does not keep Upsert listing forever.
func TestHostilePagination(t *testing.T) {
	t.Parallel()
	for name, next := range map[string]func(int) int{
		"cycle":   func(p int) int { return p%3 + 1 }, // 1 → 2 → 3 → 1
		"endless": func(p int) int { return p + 1 },
	} {
		t.Run(name, func(t *testing.T) {
			l := &loopPages{next: next}
			u := &Upserter{Client: l, Target: Target{Owner: "o", Repo: "r", Number: 1, Author: "me"},
				Sleep: func(context.Context, time.Duration) error { return nil }}
			_, err := upsertWithin(t, 20*time.Second, context.Background(), u)
			if err == nil {
				t.Errorf("no error from a comment list that does not end")
			}
			if l.lists > 2*maxPages+10 {
				t.Errorf("%d list calls", l.lists)
			}
		})
	}
}

// TestHostileHangingAPI checks that a GitHub API that never answers a REST
// call does not hold the job: Connect's client gives each request a
// deadline (the GraphQL one has its own).
func TestHostileHangingAPI(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	defer func(d time.Duration) { requestTimeout = d }(requestTimeout)
	requestTimeout = 500 * time.Millisecond
	api, err := Connect(srv.URL, "", "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	u := &Upserter{Client: api.Comments, Target: Target{Owner: "o", Repo: "r", Number: 1, Author: "me"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	if _, err := upsertWithin(t, 20*time.Second, context.Background(), u); err == nil {
		t.Errorf("no error from an API that never answers")
	}
}

// TestHostileHugeAnswer checks that a list answer that never ends (a
// 10 MB comment body, then more) is cut off, not read into memory whole.
func TestHostileHugeAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"id":1,"user":{"login":"me"},"body":"` + Marker + `\n`))
		chunk := []byte(strings.Repeat("a", 1<<20))
		for i := 0; i < 4096; i++ { // 4 GiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	api, err := Connect(srv.URL, "", "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	u := &Upserter{Client: api.Comments, Target: Target{Owner: "o", Repo: "r", Number: 1, Author: "me"},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	_, err = upsertWithin(t, 60*time.Second, context.Background(), u)
	if err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("err %v; want the answer refused as over the limit", err)
	}
}

// TestHostileParseCost checks that a body of ours (from a hostile API, or
// edited) made of many sections that never end is parsed in time linear in
// its size: it took 76 s for 4 MiB, searching the rest of the body for each
// section's end.
func TestHostileParseCost(t *testing.T) {
	t.Parallel()
	for _, distinct := range []bool{false, true} {
		var b strings.Builder
		b.WriteString(Marker + "\n")
		for i := 0; b.Len() < 4<<20; i++ {
			key := "k"
			if distinct {
				key = strconv.Itoa(i)
			}
			b.WriteString(sectionPrefix + encodeKey(key) + markerSuffix + "\n" + dataPrefix + `{"key":"` + key + `"}` + markerSuffix + "\n")
		}
		b.WriteString("\n" + endPrefix + encodeKey("k") + markerSuffix + "\n")
		secs, ok := Parse(b.String())
		// The first section of key k ends at the one end marker; with
		// distinct keys no section ends.
		want := 1
		if distinct {
			want = 0
		}
		if !ok || len(secs) != want || want == 1 && secs[0].Key != "k" {
			t.Errorf("distinct=%v: %d sections, ok %v", distinct, len(secs), ok)
		}
	}
}
