package comment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// MaxBodyBytes is the size the comment body is kept under. GitHub allows
// 65,536 characters; bytes are never fewer than characters, and the margin
// covers GitHub counting line ends as two.
const MaxBodyBytes = 60000

// minDetail is the smallest Markdown budget worth giving a section before it
// is collapsed to its table row.
const minDetail = 2048

// maxWait bounds one wait for a rate limit.
const maxWait = time.Minute

// Errors callers act on.
var (
	// ErrNoAccess means GitHub answered 403 (not a rate limit) or 404: a
	// read-only token (a fork's pull request), a missing
	// "pull-requests: write" permission, or no such pull request.
	ErrNoAccess = errors.New("no access to pull request comments")
	// ErrConflict means concurrent writers kept overwriting our section
	// for all retries.
	ErrConflict = errors.New("comment section lost to concurrent writers")
	// ErrTooLarge means even with every section collapsed the body is over
	// [MaxBodyBytes].
	ErrTooLarge = errors.New("comment too large")
)

// errVanished means a comment we read was deleted before we wrote it.
var errVanished = errors.New("comment vanished")

// Client is shaped like go-github's IssuesService comment calls;
// *github.IssuesService satisfies it.
type Client interface {
	ListComments(ctx context.Context, owner, repo string, number int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error)
	CreateComment(ctx context.Context, owner, repo string, number int, c *github.IssueComment) (*github.IssueComment, *github.Response, error)
	EditComment(ctx context.Context, owner, repo string, id int64, c *github.IssueComment) (*github.IssueComment, *github.Response, error)
	DeleteComment(ctx context.Context, owner, repo string, id int64) (*github.Response, error)
}

var _ Client = (*github.IssuesService)(nil)

// Target is the pull request (or issue) to comment on. Author is the login
// that owns our comments; "" accepts any author whose comment starts with
// [Marker].
type Target struct {
	Owner, Repo string
	Number      int
	Author      string
}

// Section is one run to show: Key names its section (one per comment-key),
// Target is a one-line name of what was fuzzed ("" uses the server's name).
type Section struct {
	Key, Target string
	Report      *report.Report
}

// Result says what [Upserter.Upsert] did. Action is "created", "edited" or
// "unchanged"; Merged counts duplicate comments merged and deleted;
// PreviousScore is the score in the section before this run.
type Result struct {
	CommentID     int64
	Action        string
	Merged        int
	PreviousScore *int
}

// Upserter writes sections into the one mcp-fuzz comment of a pull request.
// Retries (default 5) bounds both read-modify-write rounds and rate-limit
// waits; Sleep (default [time.Sleep]) and Rand (default a shared source) are
// for tests. Settle (default 1s) is how long to wait after writing before the
// re-read that verifies no concurrent writer dropped our section.
type Upserter struct {
	Client  Client
	Target  Target
	Retries int
	Sleep   func(time.Duration)
	Rand    *rand.Rand
	Settle  time.Duration
}

// Upsert puts s into the comment: it reads all comments, takes ours (first
// line [Marker], by Target.Author when set), merges duplicates into the
// oldest and deletes the rest, replaces or appends the section of s.Key,
// keeps the body under [MaxBodyBytes], edits only when the body changed, and
// re-reads to verify that our section and every section that was there
// survived, retrying with jitter when not. A 403 or 404 that is not a rate
// limit returns an error wrapping [ErrNoAccess].
func (u *Upserter) Upsert(ctx context.Context, s Section) (Result, error) {
	if s.Key == "" {
		return Result{}, errors.New("comment: empty section key")
	}
	if s.Report == nil {
		return Result{}, errors.New("comment: nil report")
	}
	st := &state{}
	for attempt := 1; ; attempt++ {
		done, err := u.attempt(ctx, s, st)
		switch {
		case errors.Is(err, errVanished):
		case err != nil:
			return st.result(), err
		case done:
			return st.result(), nil
		}
		if attempt >= u.retries() {
			return st.result(), fmt.Errorf("upserting section %q after %d attempts: %w", s.Key, attempt, ErrConflict)
		}
		u.sleep(u.jitter(attempt))
		if err := ctx.Err(); err != nil {
			return st.result(), err
		}
	}
}

// state carries what Upsert learns across attempts.
type state struct {
	read      bool // the first read happened; previous is known
	previous  *int
	createdID int64
	res       Result
}

func (st *state) result() Result {
	r := st.res
	r.PreviousScore = st.previous
	if r.Action == "" {
		r.Action = "unchanged"
	}
	return r
}

// attempt is one read-modify-write-verify round. It returns done when our
// section is verified in place.
func (u *Upserter) attempt(ctx context.Context, s Section, st *state) (bool, error) {
	ours, err := u.ours(ctx)
	if err != nil {
		return false, err
	}
	var sections []SectionData
	var body string
	for _, c := range ours {
		secs, _ := Parse(c.GetBody())
		sections = mergeSections(sections, secs)
	}
	if len(ours) > 0 {
		body = ours[0].GetBody()
	}
	idx := -1
	for i, sec := range sections {
		if sec.Key == s.Key {
			idx = i
		}
	}
	if !st.read {
		st.read = true
		if idx >= 0 && sections[idx].Score != nil {
			v := *sections[idx].Score
			st.previous = &v
		}
	}
	before := make([]string, 0, len(sections))
	for _, sec := range sections {
		if sec.Key != s.Key {
			before = append(before, sec.Key)
		}
	}
	mine := newSection(s.Key, s.Target, s.Report, MaxBodyBytes)
	mine.Previous = st.previous
	if idx >= 0 {
		// An identical re-run keeps the change shown since the run before,
		// so the body does not change.
		old := sections[idx]
		old.Previous = mine.Previous
		if reflect.DeepEqual(old, mine) {
			mine.Previous = sections[idx].Previous
		}
	}
	if idx < 0 {
		sections = append(sections, mine)
		idx = len(sections) - 1
	} else {
		sections[idx] = mine
	}
	newBody, err := fit(sections, idx, s.Report)
	if err != nil {
		return false, err
	}
	wrote := false
	switch {
	case len(ours) == 0:
		var c *github.IssueComment
		err = u.call(ctx, "creating comment", func() (*github.Response, error) {
			var resp *github.Response
			var err error
			c, resp, err = u.Client.CreateComment(ctx, u.Target.Owner, u.Target.Repo, u.Target.Number, &github.IssueComment{Body: &newBody})
			return resp, err
		})
		if err != nil {
			return false, err
		}
		st.createdID, wrote = c.GetID(), true
		st.res.CommentID, st.res.Action = c.GetID(), "created"
	case newBody != strings.ReplaceAll(body, "\r\n", "\n"):
		id := ours[0].GetID()
		err = u.call(ctx, "editing comment", func() (*github.Response, error) {
			_, resp, err := u.Client.EditComment(ctx, u.Target.Owner, u.Target.Repo, id, &github.IssueComment{Body: &newBody})
			return resp, err
		})
		if err != nil {
			return false, err
		}
		wrote = true
		st.res.CommentID, st.res.Action = id, "edited"
		if id == st.createdID {
			st.res.Action = "created"
		}
	default:
		st.res.CommentID = ours[0].GetID()
		if st.res.CommentID != st.createdID && st.res.Action == "" {
			st.res.Action = "unchanged"
		}
	}
	for i, dup := range ours {
		if i == 0 {
			continue
		}
		id := dup.GetID()
		err := u.call(ctx, "deleting duplicate comment", func() (*github.Response, error) {
			return u.Client.DeleteComment(ctx, u.Target.Owner, u.Target.Repo, id)
		})
		switch {
		case errors.Is(err, errVanished):
			// Another writer deleted it first.
		case err != nil:
			return false, err
		default:
			st.res.Merged++
			wrote = true
		}
	}
	if !wrote {
		return true, nil
	}
	u.sleep(u.settle())
	return u.verify(ctx, sections[idx], before)
}

// verify re-reads the comments and reports whether the oldest of ours holds
// want and a section for every key in before.
func (u *Upserter) verify(ctx context.Context, want SectionData, before []string) (bool, error) {
	ours, err := u.ours(ctx)
	if err != nil || len(ours) == 0 {
		return false, err
	}
	secs, _ := Parse(ours[0].GetBody())
	have := map[string]SectionData{}
	for _, sec := range secs {
		if _, ok := have[sec.Key]; !ok {
			have[sec.Key] = sec
		}
	}
	got, ok := have[want.Key]
	if !ok {
		return false, nil
	}
	// Another writer may have collapsed our details to make room; the
	// numbers must still be ours.
	md, wantMD := got.Markdown, want.Markdown
	got.Markdown, want.Markdown = "", ""
	if !reflect.DeepEqual(got, want) || md != wantMD && !isCollapsed(md) {
		return false, nil
	}
	for _, k := range before {
		if _, ok := have[k]; !ok {
			return false, nil
		}
	}
	return true, nil
}

// mergeSections appends the sections of add whose keys are not in have.
func mergeSections(have, add []SectionData) []SectionData {
	seen := map[string]bool{}
	for _, s := range have {
		seen[s.Key] = true
	}
	for _, s := range add {
		if !seen[s.Key] {
			seen[s.Key] = true
			have = append(have, s)
		}
	}
	return have
}

// ours lists every page of comments and returns ours, oldest first.
func (u *Upserter) ours(ctx context.Context) ([]*github.IssueComment, error) {
	var out []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		var page []*github.IssueComment
		var next int
		err := u.call(ctx, "listing comments", func() (*github.Response, error) {
			var resp *github.Response
			var err error
			page, resp, err = u.Client.ListComments(ctx, u.Target.Owner, u.Target.Repo, u.Target.Number, opts)
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			if errors.Is(err, errVanished) {
				err = fmt.Errorf("listing comments: %w", ErrNoAccess)
			}
			return nil, err
		}
		for _, c := range page {
			if u.isOurs(c) {
				out = append(out, c)
			}
		}
		if next == 0 || next == opts.Page {
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
	return out, nil
}

func (u *Upserter) isOurs(c *github.IssueComment) bool {
	if u.Target.Author != "" && !strings.EqualFold(c.GetUser().GetLogin(), u.Target.Author) {
		return false
	}
	first, _, _ := strings.Cut(c.GetBody(), "\n")
	return strings.TrimSpace(first) == Marker
}

// call runs fn, waiting out rate limits up to Retries times. A 404 becomes
// errVanished (the caller decides what it means); any other 403 wraps
// ErrNoAccess.
func (u *Upserter) call(ctx context.Context, what string, fn func() (*github.Response, error)) error {
	for i := 1; ; i++ {
		resp, err := fn()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		wait, limited := rateLimit(resp, err, i)
		if limited {
			if i >= u.retries() {
				return fmt.Errorf("%s: rate limited %d times: %w", what, i, err)
			}
			u.sleep(wait)
			continue
		}
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		switch status {
		case http.StatusNotFound:
			if what == "creating comment" {
				return fmt.Errorf("%s: %w: %w", what, ErrNoAccess, err)
			}
			return fmt.Errorf("%s: %w: %w", what, errVanished, err)
		case http.StatusForbidden, http.StatusUnauthorized:
			return fmt.Errorf("%s: %w: %w", what, ErrNoAccess, err)
		}
		return fmt.Errorf("%s: %w", what, err)
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

// fit returns the body of sections within MaxBodyBytes: our section (at
// index our) is re-rendered with a smaller budget, the largest other
// sections are collapsed to their table row, and at last ours too.
func fit(sections []SectionData, our int, rep *report.Report) (string, error) {
	body := Render(sections)
	if len(body) <= MaxBodyBytes {
		return body, nil
	}
	share := MaxBodyBytes / len(sections)
	avail := func() int {
		md := sections[our].Markdown
		sections[our].Markdown = ""
		n := MaxBodyBytes - len(Render(sections))
		sections[our].Markdown = md
		return n
	}
	// Collapse the largest other sections until ours gets its fair share.
	order := make([]int, 0, len(sections))
	for i := range sections {
		if i != our {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool {
		return len(sections[order[a]].Markdown) > len(sections[order[b]].Markdown)
	})
	for _, i := range order {
		if a := avail(); a >= share && a >= minDetail {
			break
		}
		if !isCollapsed(sections[i].Markdown) {
			sections[i].Markdown = collapsed(sections[i])
		}
	}
	if a := avail(); a >= minDetail {
		sections[our].Markdown = sectionMarkdown(rep, a)
	} else {
		sections[our].Markdown = collapsed(sections[our])
	}
	body = Render(sections)
	if len(body) > MaxBodyBytes {
		return "", fmt.Errorf("%d sections need %d bytes: %w", len(sections), len(body), ErrTooLarge)
	}
	return body, nil
}

func (u *Upserter) retries() int {
	if u.Retries > 0 {
		return u.Retries
	}
	return 5
}

func (u *Upserter) sleep(d time.Duration) {
	if u.Sleep != nil {
		u.Sleep(d)
		return
	}
	time.Sleep(d)
}

func (u *Upserter) settle() time.Duration {
	if u.Settle > 0 {
		return u.Settle
	}
	return time.Second
}

// jitter is a random 100–800 ms times attempt.
func (u *Upserter) jitter(attempt int) time.Duration {
	var n int64
	if u.Rand != nil {
		n = u.Rand.Int64N(701)
	} else {
		n = rand.Int64N(701)
	}
	return time.Duration(100+n) * time.Millisecond * time.Duration(attempt)
}
