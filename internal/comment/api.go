package comment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// maxWait bounds one wait for a rate limit.
const maxWait = time.Minute

// op is one kind of request to the comments API. A [plan] writes with
// opCreate, opEdit or opNone (no write).
type op int

const (
	opNone op = iota
	opList
	opCreate
	opEdit
	opDelete
)

// String says what a request of o is doing, for errors.
func (o op) String() string {
	switch o {
	case opList:
		return "listing comments"
	case opCreate:
		return "creating comment"
	case opEdit:
		return "editing comment"
	case opDelete:
		return "deleting duplicate comment"
	}
	return "leaving comment as it is"
}

// notFound is what a 404 answer to o means. Listing or creating names the
// pull request, and GitHub answers 404 for one the token may not see:
// [ErrNoAccess]. Editing or deleting names a comment, which another writer
// may have deleted since we read it: errVanished.
func (o op) notFound() error {
	if o == opList || o == opCreate {
		return ErrNoAccess
	}
	return errVanished
}

// maxPages bounds the pages of comments read in one listing: 30,000
// comments, far more than a pull request has. A longer listing is a broken
// or hostile API's, and an error.
const maxPages = 300

// maxOursBytes bounds the bytes of the bodies of ours kept from one
// listing. GitHub keeps a body under 65,536 characters (at most 256 KiB);
// more is a broken or hostile API's, and an error.
const maxOursBytes = 16 << 20

// ours lists every page of comments and returns ours, oldest first: those
// by st.author whose first line is [Marker], less the minimized ones. A
// next page already read ends the listing (a Link header that cycles back);
// more than [maxPages] pages, or more than [maxOursBytes] of ours, is an
// error.
func (u *Upserter) ours(ctx context.Context, st *state) ([]*github.IssueComment, error) {
	var out []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	seen := map[int]bool{}
	size := 0
	for pages := 1; ; pages++ {
		if pages > maxPages {
			return nil, fmt.Errorf("%s: more than %d pages", opList, maxPages)
		}
		seen[max(opts.Page, 1)] = true
		var page []*github.IssueComment
		var next int
		err := u.call(ctx, opList, func() (*github.Response, error) {
			var resp *github.Response
			var err error
			page, resp, err = u.Client.ListComments(ctx, u.Target.Owner, u.Target.Repo, u.Target.Number, opts)
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, c := range page {
			if isOurs(c, st.author) {
				size += len(c.GetBody())
				if size > maxOursBytes {
					return nil, fmt.Errorf("%s: comments of ours over %d bytes", opList, maxOursBytes)
				}
				out = append(out, c)
			}
		}
		if next <= 0 || seen[next] {
			break
		}
		opts.Page = next
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].GetCreatedAt().Time, out[j].GetCreatedAt().Time
		if !a.Equal(b) {
			return a.Before(b)
		}
		return out[i].GetID() < out[j].GetID()
	})
	return u.unminimized(ctx, st, out), nil
}

// isOurs reports whether c is a comment of ours: by author, which must be
// known, and with [Marker] for its first line. Anyone can write the marker.
func isOurs(c *github.IssueComment, author string) bool {
	if !sameLogin(c.GetUser().GetLogin(), author) {
		return false
	}
	first, _, _ := strings.Cut(c.GetBody(), "\n")
	return strings.TrimSpace(first) == Marker
}

// unminimized returns ours less the comments that are minimized, asking
// [Upserter.GraphQL] about each comment once per Upsert. When asking fails
// it says so in a notice and takes none for minimized from then on: the
// comments are ours either way.
func (u *Upserter) unminimized(ctx context.Context, st *state, ours []*github.IssueComment) []*github.IssueComment {
	if u.GraphQL == nil || st.noGraphQL {
		return ours
	}
	var ask []string
	byNode := map[string]int64{}
	for _, c := range ours {
		if _, known := st.minimized[c.GetID()]; !known && c.GetNodeID() != "" {
			ask = append(ask, c.GetNodeID())
			byNode[c.GetNodeID()] = c.GetID()
		}
	}
	if len(ask) > 0 {
		hidden, err := Minimized(ctx, u.GraphQL, ask)
		if err != nil {
			st.noGraphQL = true
			st.notices = append(st.notices, fmt.Sprintf("could not ask GraphQL which comments are minimized (%v): took none of ours for minimized", err))
			return ours
		}
		for node, id := range byNode {
			st.minimized[id] = hidden[node]
		}
	}
	out := ours[:0:0]
	for _, c := range ours {
		if !st.minimized[c.GetID()] {
			out = append(out, c)
		}
	}
	return out
}

// create creates a comment with body and returns its id and the login
// GitHub says authored it.
func (u *Upserter) create(ctx context.Context, body string) (int64, string, error) {
	var c *github.IssueComment
	err := u.call(ctx, opCreate, func() (*github.Response, error) {
		var resp *github.Response
		var err error
		c, resp, err = u.Client.CreateComment(ctx, u.Target.Owner, u.Target.Repo, u.Target.Number, &github.IssueComment{Body: &body})
		return resp, err
	})
	return c.GetID(), c.GetUser().GetLogin(), err
}

// edit replaces the body of comment id.
func (u *Upserter) edit(ctx context.Context, id int64, body string) error {
	return u.call(ctx, opEdit, func() (*github.Response, error) {
		_, resp, err := u.Client.EditComment(ctx, u.Target.Owner, u.Target.Repo, id, &github.IssueComment{Body: &body})
		return resp, err
	})
}

// remove deletes comment id.
func (u *Upserter) remove(ctx context.Context, id int64) error {
	return u.call(ctx, opDelete, func() (*github.Response, error) {
		return u.Client.DeleteComment(ctx, u.Target.Owner, u.Target.Repo, id)
	})
}

// call runs fn, a request of kind o, waiting out rate limits up to Retries
// times. A 404 wraps what [op.notFound] says it means; a 401 or any other
// 403 wraps [ErrNoAccess].
func (u *Upserter) call(ctx context.Context, o op, fn func() (*github.Response, error)) error {
	for i := 1; ; i++ {
		resp, err := fn()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", o, ctx.Err())
		}
		wait, limited := rateLimit(resp, err, i)
		if limited {
			if i >= u.retries() {
				return fmt.Errorf("%s: rate limited %d times: %w", o, i, err)
			}
			if err := u.wait(ctx, wait); err != nil {
				return fmt.Errorf("%s: waiting out a rate limit: %w", o, err)
			}
			continue
		}
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		switch status {
		case http.StatusNotFound:
			return fmt.Errorf("%s: %w: %w", o, o.notFound(), err)
		case http.StatusForbidden, http.StatusUnauthorized:
			return fmt.Errorf("%s: %w: %w", o, ErrNoAccess, err)
		}
		return fmt.Errorf("%s: %w", o, err)
	}
}

// rateLimit reports whether a failed call hit a rate limit, and how long to
// wait: Retry-After, else until X-RateLimit-Reset, else exponential, all
// bounded by maxWait.
func rateLimit(resp *github.Response, err error, attempt int) (time.Duration, bool) {
	wait := time.Duration(1<<min(attempt-1, 6)) * time.Second
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	limited := false
	switch {
	case errors.As(err, &ab):
		limited = true
		if ab.RetryAfter != nil {
			wait = *ab.RetryAfter
		}
	case errors.As(err, &rl):
		limited = true
		if !rl.Rate.Reset.IsZero() {
			wait = time.Until(rl.Rate.Reset.Time)
		}
	}
	if resp != nil {
		h := resp.Header
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			limited = true
		case resp.StatusCode == http.StatusForbidden && (h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"):
			limited = true
		}
		if v, err := strconv.Atoi(h.Get("Retry-After")); err == nil && limited {
			wait = time.Duration(v) * time.Second
		} else if v, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil && limited && h.Get("X-RateLimit-Remaining") == "0" {
			wait = time.Until(time.Unix(v, 0))
		}
	}
	return min(max(wait, time.Second), maxWait), limited
}

// wait sleeps for d with [Upserter.Sleep], by default [sleep].
func (u *Upserter) wait(ctx context.Context, d time.Duration) error {
	if u.Sleep != nil {
		return u.Sleep(ctx, d)
	}
	return sleep(ctx, d)
}

// sleep waits for d, or returns ctx.Err() as soon as ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
