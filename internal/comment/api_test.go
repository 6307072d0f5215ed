package comment

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
)

// fakeClient records the writes of [Upserter.apply] and answers each with
// the error in errs, by comment id (0 for create).
type fakeClient struct {
	Client
	calls []string
	errs  map[int64]error
}

func (f *fakeClient) CreateComment(_ context.Context, _, _ string, _ int, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.calls = append(f.calls, "create "+c.GetBody())
	return issueComment(42, c.GetBody()), nil, f.errs[0]
}

func (f *fakeClient) EditComment(_ context.Context, _, _ string, id int64, c *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	f.calls = append(f.calls, "edit "+strconv.FormatInt(id, 10)+" "+c.GetBody())
	return c, nil, f.errs[id]
}

func (f *fakeClient) DeleteComment(_ context.Context, _, _ string, id int64) (*github.Response, error) {
	f.calls = append(f.calls, "delete "+strconv.FormatInt(id, 10))
	if f.errs[id] != nil {
		return &github.Response{Response: &http.Response{StatusCode: http.StatusNotFound}}, f.errs[id]
	}
	return nil, nil
}

func TestApply(t *testing.T) {
	t.Parallel()
	gone := errors.New("404 Not Found")
	for _, tc := range []struct {
		name      string
		plan      plan
		createdID int64 // a comment an earlier round created
		errs      map[int64]error

		calls  []string
		wrote  bool
		result Result
	}{
		{name: "create", plan: plan{write: opCreate, body: "B"},
			calls: []string{"create B"}, wrote: true, result: Result{CommentID: 42, Action: "created"}},
		{name: "edit", plan: plan{write: opEdit, id: 7, body: "B"},
			calls: []string{"edit 7 B"}, wrote: true, result: Result{CommentID: 7, Action: "edited"}},
		{name: "edit the comment an earlier round created", plan: plan{write: opEdit, id: 7, body: "B"}, createdID: 7,
			calls: []string{"edit 7 B"}, wrote: true, result: Result{CommentID: 7, Action: "created"}},
		{name: "none", plan: plan{write: opNone, id: 7, body: "B"},
			wrote: false, result: Result{CommentID: 7, Action: "unchanged"}},
		{name: "none, and duplicates deleted", plan: plan{write: opNone, id: 7, body: "B", delete: []int64{8, 9}},
			calls: []string{"delete 8", "delete 9"}, wrote: true, result: Result{CommentID: 7, Action: "unchanged", Merged: 2}},
		{name: "a duplicate another writer deleted first", plan: plan{write: opEdit, id: 7, body: "B", delete: []int64{8, 9}}, errs: map[int64]error{8: gone},
			calls: []string{"edit 7 B", "delete 8", "delete 9"}, wrote: true, result: Result{CommentID: 7, Action: "edited", Merged: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeClient{errs: tc.errs}
			u := &Upserter{Client: f}
			st := &state{createdID: tc.createdID}
			wrote, err := u.apply(context.Background(), tc.plan, st)
			if err != nil || wrote != tc.wrote || !reflect.DeepEqual(st.result(), tc.result) || !slices.Equal(f.calls, tc.calls) {
				t.Errorf("apply = %v, %v, %+v, calls %q; want %v, %+v, calls %q", wrote, err, st.result(), f.calls, tc.wrote, tc.result, tc.calls)
			}
		})
	}
}

// TestNotFound checks what a 404 means for each kind of request: no access
// for the pull request's list and create, a vanished comment for an edit
// or a delete.
func TestNotFound(t *testing.T) {
	t.Parallel()
	resp := &github.Response{Response: &http.Response{StatusCode: http.StatusNotFound}}
	for o, want := range map[op]error{opList: ErrNoAccess, opCreate: ErrNoAccess, opEdit: errVanished, opDelete: errVanished} {
		u := &Upserter{}
		err := u.call(context.Background(), o, func() (*github.Response, error) { return resp, errors.New("404 Not Found") })
		if !errors.Is(err, want) {
			t.Errorf("%v: %v, want %v", o, err, want)
		}
	}
}

// TestSleepStopsWhenCancelled runs on synctest's clock: the hour-long
// sleeps end when the context does, not an hour later.
func TestSleepStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled before: %v", err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(10*time.Millisecond, cancel)
		start := time.Now()
		if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) != 10*time.Millisecond {
			t.Errorf("cancelled during: %v after %v", err, time.Since(start))
		}
		start = time.Now()
		if err := sleep(context.Background(), time.Millisecond); err != nil || time.Since(start) != time.Millisecond {
			t.Errorf("not cancelled: %v after %v", err, time.Since(start))
		}
	})
}

// cancelAfterCreate cancels a context once a comment is created.
type cancelAfterCreate struct {
	Client
	cancel context.CancelFunc
}

func (c cancelAfterCreate) CreateComment(ctx context.Context, owner, repo string, number int, ic *github.IssueComment) (*github.IssueComment, *github.Response, error) {
	defer c.cancel()
	return c.Client.CreateComment(ctx, owner, repo, number, ic)
}

// upsertWithin runs u.Upsert and fails the test when it takes longer than d.
func upsertWithin(t *testing.T, d time.Duration, ctx context.Context, u *Upserter) (Result, error) {
	t.Helper()
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := u.Upsert(ctx, Section{Key: "a", Report: testReport("alpha", 80, "C")})
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(d):
		t.Fatalf("Upsert still waiting after %v", d)
		return Result{}, nil
	}
}

// TestCancelStopsWaits checks that a cancelled context ends the wait before
// the verifying re-read and the waits out of a rate limit, instead of
// sleeping them out.
func TestCancelStopsWaits(t *testing.T) {
	t.Run("settle", func(t *testing.T) {
		fake := fakegithub.New(t)
		gh := github.NewClient(nil)
		gh.BaseURL, _ = url.Parse(fake.URL)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		u := &Upserter{Client: cancelAfterCreate{gh.Issues, cancel}, Target: Target{Owner: "o", Repo: "r", Number: 1}, Settle: time.Hour}
		res, err := upsertWithin(t, 30*time.Second, ctx, u)
		if !errors.Is(err, context.Canceled) || res.Action != "created" {
			t.Errorf("%+v, %v; want created and context.Canceled", res, err)
		}
		if c := fake.Calls(); c["list"] != 1 {
			t.Errorf("calls %v: re-read after cancel", c)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		fake := fakegithub.New(t)
		fake.RateLimitNext = 100 // each answer asks for a second's wait
		gh := github.NewClient(nil)
		gh.BaseURL, _ = url.Parse(fake.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		u := &Upserter{Client: gh.Issues, Target: Target{Owner: "o", Repo: "r", Number: 1}, Retries: 20}
		start := time.Now()
		_, err := upsertWithin(t, 30*time.Second, ctx, u)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 900*time.Millisecond {
			t.Errorf("took %v: waited out a rate limit of 1s", d)
		}
	})
}
