package comment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// MaxBodyBytes is the size the comment body is kept under. GitHub allows
// 65,536 characters; bytes are never fewer than characters, and the margin
// covers GitHub counting line ends as two.
const MaxBodyBytes = 60000

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
// the token's comments are authored by, as REST shows it (see [Whoami]):
// only its comments are ours. "" means it is not known: no existing
// comment is ours, and [Upserter.Upsert] creates one (and from then on takes
// the login that authored it for ours).
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
// PreviousScore is the score in the section before this run; Author is the
// login taken for ours; Notices are things the caller should tell the
// user (the author was not known, minimized comments could not be seen).
type Result struct {
	CommentID     int64
	Action        string
	Merged        int
	PreviousScore *int
	Author        string
	Skipped       int // minimized comments of ours left alone
	Notices       []string
}

// String says what an upsert did: "created", "edited (merged 2 duplicate
// comments)", "created (1 minimized comment left alone)".
func (r Result) String() string {
	var notes []string
	if r.Merged > 0 {
		notes = append(notes, fmt.Sprintf("merged %d duplicate comments", r.Merged))
	}
	switch {
	case r.Skipped == 1:
		notes = append(notes, "1 minimized comment left alone")
	case r.Skipped > 1:
		notes = append(notes, fmt.Sprintf("%d minimized comments left alone", r.Skipped))
	}
	action := r.Action
	if action == "" {
		action = "unchanged"
	}
	if len(notes) == 0 {
		return action
	}
	return action + " (" + strings.Join(notes, ", ") + ")"
}

// Upserter writes sections into the one mcp-fuzz comment of a pull request.
// Retries (default 5) bounds both read-modify-write rounds and rate-limit
// waits; Sleep (default: a timer that stops early, returning ctx.Err(), when
// ctx is done) and Rand (default a shared source) are for tests. Settle
// (default 1s) is how long to wait after writing before the re-read that
// verifies no concurrent writer dropped our section. GraphQL, when set,
// tells which comments are minimized (see [Minimized]); nil sees none.
type Upserter struct {
	Client  Client
	Target  Target
	GraphQL Querier
	Retries int
	Sleep   func(ctx context.Context, d time.Duration) error
	Rand    *rand.Rand
	Settle  time.Duration
}

// Upsert puts s into the comment: it reads all comments, takes ours (first
// line [Marker], by Target.Author, not minimized), merges duplicates into the
// oldest and deletes the rest, replaces or appends the section of s.Key,
// keeps the body under [MaxBodyBytes], edits only when the body changed, and
// re-reads to verify that our section and every section that was there
// survived, retrying with jitter when not. It never edits or deletes a
// comment of another author, nor a minimized one: someone hid it, and a new
// comment takes its place. With no Target.Author it creates a comment, and
// takes the login GitHub says wrote it for ours (so too when that login is
// not Target.Author, with a notice). A 403 or 404 that is not a rate
// limit returns an error wrapping [ErrNoAccess]. Every wait ends early when
// ctx is done.
func (u *Upserter) Upsert(ctx context.Context, s Section) (Result, error) {
	if s.Key == "" {
		return Result{}, errors.New("comment: empty section key")
	}
	if s.Report == nil {
		return Result{}, errors.New("comment: nil report")
	}
	st := &state{author: u.Target.Author, minimized: map[int64]bool{}}
	for attempt := 1; ; attempt++ {
		done, err := u.round(ctx, s, st)
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
		if err := u.wait(ctx, u.jitter(attempt)); err != nil {
			return st.result(), fmt.Errorf("waiting to retry: %w", err)
		}
	}
}

// state carries what Upsert learns across rounds.
type state struct {
	read      bool // the first read happened; previous is known
	previous  *int
	createdID int64
	res       Result
	author    string         // the login of ours; "" until known
	minimized map[int64]bool // comments asked about, by id
	noGraphQL bool           // asking failed once: do not ask again
	notices   []string
}

func (st *state) result() Result {
	r := st.res
	r.PreviousScore = st.previous
	r.Author = st.author
	r.Notices = st.notices
	for _, m := range st.minimized {
		if m {
			r.Skipped++
		}
	}
	if r.Action == "" {
		r.Action = "unchanged"
	}
	return r
}

// round is one read-plan-apply-verify round. It returns done when our
// section is verified in place, or when there was nothing to write.
func (u *Upserter) round(ctx context.Context, s Section, st *state) (bool, error) {
	ours, err := u.ours(ctx, st)
	if err != nil {
		return false, err
	}
	if !st.read {
		st.read = true
		st.previous = previousScore(ours, s.Key)
	}
	p, err := planRound(ours, s, st.previous)
	if err != nil {
		return false, err
	}
	wrote, err := u.apply(ctx, p, st)
	if err != nil || !wrote {
		return err == nil, err
	}
	if err := u.wait(ctx, u.settle()); err != nil {
		return false, fmt.Errorf("waiting to verify: %w", err)
	}
	return u.verify(ctx, st, p.mine, p.others)
}

// apply performs p: it creates or edits our comment and deletes the
// duplicates, records what it did in st, and reports whether it wrote
// anything. A duplicate another writer deleted first is skipped.
func (u *Upserter) apply(ctx context.Context, p plan, st *state) (bool, error) {
	wrote := false
	switch p.write {
	case opCreate:
		id, login, err := u.create(ctx, p.body)
		if err != nil {
			return false, err
		}
		wrote = true
		st.createdID = id
		if st.minimized != nil {
			st.minimized[id] = false // just made: nobody has hidden it
		}
		// GitHub says who wrote the comment we just made: us. An author
		// that was not known, or was set wrong, gives way to it, or every
		// round would make another comment it does not take for ours.
		switch {
		case login == "" || sameLogin(login, st.author):
		case st.author == "":
			st.notices = append(st.notices, fmt.Sprintf("the token's login was not known: created a new comment rather than edit an existing one; it is by %s, whose comments are taken for ours for the rest of this run", login))
			st.author = login
		default:
			st.notices = append(st.notices, fmt.Sprintf("the comment was created as %s, not %s: took %s's comments for ours", login, st.author, login))
			st.author = login
		}
		st.res.CommentID, st.res.Action = id, "created"
	case opEdit:
		if err := u.edit(ctx, p.id, p.body); err != nil {
			return false, err
		}
		wrote = true
		st.res.CommentID, st.res.Action = p.id, "edited"
		if p.id == st.createdID {
			st.res.Action = "created"
		}
	default:
		st.res.CommentID = p.id
	}
	for _, id := range p.delete {
		err := u.remove(ctx, id)
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
	return wrote, nil
}

// verify re-reads the comments and reports whether the oldest of ours holds
// want and a section for every key in before.
func (u *Upserter) verify(ctx context.Context, st *state, want SectionData, before []string) (bool, error) {
	ours, err := u.ours(ctx, st)
	if err != nil || len(ours) == 0 {
		return false, err
	}
	if len(ours) > 1 {
		// A duplicate of ours is left: the comment this round created
		// before our login was known (its older twin may hold our section
		// as it is, unchanged since the run before), or a concurrent
		// writer's. Another round merges it into the oldest.
		return false, nil
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

func (u *Upserter) retries() int {
	if u.Retries > 0 {
		return u.Retries
	}
	return 5
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
