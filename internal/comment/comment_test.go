package comment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func ptr[T any](v T) *T { return &v }

func testReport(name string, score int, grade string) *report.Report {
	rep := &report.Report{
		Version: "test", Graded: true, Score: ptr(score), Grade: ptr(grade),
		Target:  report.Target{Transport: "stdio", Command: "./" + name},
		Server:  report.Server{Name: name, Version: "1.0"},
		Summary: report.Summary{Cases: 10, Crash: 1, Hang: 2, Accepted: 3, ToolsTested: 1},
		Tools:   []report.Tool{{Name: "echo", Tested: true}},
		Findings: []report.Finding{{ID: "f1", Severity: "critical", Code: "crash", Tool: "echo",
			Message: "it crashed", Reproducer: report.Reproducer{JSONRPC: `{"jsonrpc":"2.0"}`}}},
	}
	rep.Normalize()
	return rep
}

func setup(t *testing.T) (*fakegithub.Server, *Upserter) {
	t.Helper()
	fake := fakegithub.New(t)
	gh := github.NewClient(nil)
	gh.BaseURL, _ = url.Parse(fake.URL)
	u := &Upserter{
		Client: gh.Issues,
		Target: Target{Owner: "o", Repo: "r", Number: 1, Author: fakegithub.DefaultUser},
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Rand:   rand.New(rand.NewPCG(1, 2)),
	}
	return fake, u
}

func upsert(t *testing.T, u *Upserter, key string, rep *report.Report) Result {
	t.Helper()
	res, err := u.Upsert(context.Background(), Section{Key: key, Report: rep})
	if err != nil {
		t.Fatalf("upsert %s: %v", key, err)
	}
	return res
}

func sectionsOf(t *testing.T, fake *fakegithub.Server) []SectionData {
	t.Helper()
	cs := fake.Comments("o", "r", 1)
	var out []SectionData
	n := 0
	for _, c := range cs {
		if secs, ok := Parse(c.Body); ok {
			n++
			out = secs
		}
	}
	if n != 1 {
		t.Fatalf("%d mcp-fuzz comments, want 1", n)
	}
	return out
}

func TestCreateEditUnchanged(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	r1 := upsert(t, u, "job-a", testReport("alpha", 80, "C"))
	if r1.Action != "created" || r1.PreviousScore != nil || r1.CommentID == 0 {
		t.Fatalf("first: %+v", r1)
	}
	r2 := upsert(t, u, "job-a", testReport("alpha", 83, "B"))
	if r2.Action != "edited" || r2.CommentID != r1.CommentID || r2.PreviousScore == nil || *r2.PreviousScore != 80 {
		t.Fatalf("second: %+v", r2)
	}
	edits := fake.Calls()["edit"]
	r3 := upsert(t, u, "job-a", testReport("alpha", 83, "B"))
	if r3.Action != "unchanged" || fake.Calls()["edit"] != edits {
		t.Fatalf("third: %+v, calls %v", r3, fake.Calls())
	}
	secs := sectionsOf(t, fake)
	if len(secs) != 1 || *secs[0].Score != 83 || *secs[0].Previous != 80 {
		t.Fatalf("sections %+v", secs)
	}
	body := fake.Comments("o", "r", 1)[0].Body
	for _, want := range []string{Marker + "\n", "https://img.shields.io/badge/mcp--fuzz-B-green", "Combined grade: B", "| +3 |", "### mcp-fuzz: alpha"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	if strings.Contains(body, "\n## mcp-fuzz: alpha") {
		t.Error("report heading not demoted")
	}
}

func TestSecondKeyKeepsFirst(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	upsert(t, u, "a", testReport("alpha", 95, "A"))
	upsert(t, u, "b", testReport("beta", 40, "F"))
	upsert(t, u, "a", testReport("alpha", 90, "A"))
	secs := sectionsOf(t, fake)
	if len(secs) != 2 || secs[0].Key != "a" || secs[1].Key != "b" || *secs[0].Score != 90 || *secs[0].Previous != 95 || secs[1].Previous != nil {
		t.Fatalf("sections %+v", secs)
	}
	body := fake.Comments("o", "r", 1)[0].Body
	if !strings.Contains(body, "mcp--fuzz-F-red") || !strings.Contains(body, "| −5 |") || !strings.Contains(body, "| new |") {
		t.Errorf("body:\n%s", body)
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	fake.PerPage = 30
	upsert(t, u, "a", testReport("alpha", 95, "A"))
	for i := range 120 {
		fake.Seed("o", "r", 1, "someone", fmt.Sprint("unrelated ", i))
	}
	lists := fake.Calls()["list"]
	r := upsert(t, u, "b", testReport("beta", 70, "C"))
	if r.Action != "edited" || fake.Calls()["create"] != 1 {
		t.Fatalf("%+v %v", r, fake.Calls())
	}
	if fake.Calls()["list"]-lists < 2 {
		t.Errorf("read %d pages", fake.Calls()["list"]-lists)
	}
	// With the fake's page size forced down, ours is on a later page too.
	u2 := *u
	u2.Client = perPage{u.Client, 30}
	upsert(t, &u2, "c", testReport("gamma", 70, "C"))
	if secs := sectionsOf(t, fake); len(secs) != 3 {
		t.Fatalf("sections %+v", secs)
	}
}

// perPage forces a page size on list calls.
type perPage struct {
	Client
	n int
}

func (p perPage) ListComments(ctx context.Context, owner, repo string, number int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error) {
	o := *opts
	o.PerPage = p.n
	return p.Client.ListComments(ctx, owner, repo, number, &o)
}

func TestMergeDuplicates(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	fake.Seed("o", "r", 1, "someone", "hi")
	oldest := fake.Seed("o", "r", 1, fakegithub.DefaultUser, Render([]SectionData{{Key: "x", Target: "X", Markdown: "x details"}}))
	fake.Seed("o", "r", 1, fakegithub.DefaultUser, Render([]SectionData{{Key: "y", Target: "Y", Markdown: "y details"}}))
	fake.Seed("o", "r", 1, fakegithub.DefaultUser, Render([]SectionData{{Key: "a", Target: "A", Score: ptr(50), Grade: "F"}}))
	r := upsert(t, u, "a", testReport("alpha", 60, "D"))
	if r.CommentID != oldest || r.Merged != 2 || r.Action != "edited" || *r.PreviousScore != 50 {
		t.Fatalf("%+v", r)
	}
	secs := sectionsOf(t, fake)
	if len(secs) != 3 || secs[0].Key != "x" || secs[0].Markdown != "x details" || secs[1].Key != "y" || secs[2].Key != "a" {
		t.Fatalf("sections %+v", secs)
	}
	if n := len(fake.Comments("o", "r", 1)); n != 2 {
		t.Fatalf("%d comments left", n)
	}
}

func TestAuthorFilter(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	fake.Seed("o", "r", 1, "mallory", Render([]SectionData{{Key: "a", Target: "fake", Score: ptr(100), Grade: "A"}}))
	r := upsert(t, u, "a", testReport("alpha", 60, "D"))
	if r.Action != "created" || r.PreviousScore != nil {
		t.Fatalf("%+v", r)
	}
	cs := fake.Comments("o", "r", 1)
	if len(cs) != 2 || !strings.Contains(cs[0].Body, "fake") {
		t.Fatalf("look-alike touched: %+v", cs)
	}
}

func TestNoAccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*fakegithub.Server)
	}{
		{"read-only", func(s *fakegithub.Server) { s.ReadOnly = true }},
		{"not-found", func(s *fakegithub.Server) { s.NotFound = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, u := setup(t)
			tc.set(fake)
			_, err := u.Upsert(context.Background(), Section{Key: "a", Report: testReport("a", 1, "F")})
			if !errors.Is(err, ErrNoAccess) {
				t.Fatalf("err = %v, want ErrNoAccess", err)
			}
			if c := fake.Calls(); c["list"]+c["create"] > 2 {
				t.Errorf("retried: %v", c)
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	for _, status := range []int{403, 429} {
		fake, u := setup(t)
		fake.RateLimitStatus = status
		fake.RateLimitNext = 3
		var slept []time.Duration
		u.Sleep = func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			return nil
		}
		r := upsert(t, u, "a", testReport("alpha", 60, "D"))
		if r.Action != "created" || len(slept) < 3 || slept[0] != time.Second {
			t.Fatalf("%d: %+v, slept %v", status, r, slept)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	t.Parallel()
	fake, u := setup(t)
	for i := range 20 {
		rep := testReport(fmt.Sprint("server", i), 50+i, "D")
		for j := range 400 {
			rep.Findings = append(rep.Findings, report.Finding{ID: fmt.Sprint(j), Severity: "error", Code: "accepted_invalid",
				Tool: "echo", Message: strings.Repeat("long message ", 20), Reproducer: report.Reproducer{JSONRPC: strings.Repeat("x", 500)}})
		}
		upsert(t, u, fmt.Sprint("k", i), rep)
		body := fake.Comments("o", "r", 1)[0].Body
		if len(body) >= MaxBodyBytes+1 {
			t.Fatalf("after %d sections: %d bytes", i+1, len(body))
		}
	}
	secs := sectionsOf(t, fake)
	if len(secs) != 20 {
		t.Fatalf("%d sections", len(secs))
	}
	if !isCollapsed(secs[0].Markdown) || isCollapsed(secs[19].Markdown) {
		t.Errorf("collapse order: first collapsed %v, last collapsed %v", isCollapsed(secs[0].Markdown), isCollapsed(secs[19].Markdown))
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	fake, _ := setup(t)
	fake.SetDelay(func() time.Duration { return time.Duration(rand.IntN(51)) * time.Millisecond })
	gh := github.NewClient(nil)
	gh.BaseURL, _ = url.Parse(fake.URL)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := &Upserter{Client: gh.Issues, Target: Target{Owner: "o", Repo: "r", Number: 1},
				Settle: 200 * time.Millisecond, Retries: 8}
			if _, err := u.Upsert(context.Background(), Section{Key: fmt.Sprint("leg-", i), Report: testReport(fmt.Sprint("s", i), 50+i, "D")}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	secs := sectionsOf(t, fake)
	if len(secs) != 8 {
		t.Fatalf("%d sections, want 8: %v", len(secs), fake.Calls())
	}
	if n := len(fake.Comments("o", "r", 1)); n != 1 {
		t.Fatalf("%d comments", n)
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	in := []SectionData{
		{Key: "job/leg 1", Target: "alpha (npx x)", Score: ptr(81), Grade: "C", Crashes: 1, Hangs: 2, Accepted: 3, Previous: ptr(78), Markdown: "### hi\n\ntext\n"},
		{Key: "ü-->", Target: "<!-- mcp-fuzz:end x -->", Markdown: ""},
		{Key: "k", Markdown: "no newline"},
	}
	out, ok := Parse(Render(in))
	if !ok || !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n%+v\n%+v", in, out)
	}
	if Render(in) != Render(out) {
		t.Fatal("not deterministic")
	}
	if _, ok := Parse("hello\n" + Marker); ok {
		t.Fatal("foreign body parsed as ours")
	}
	crlf := strings.ReplaceAll(Render(in), "\n", "\r\n")
	if out, _ := Parse(crlf); !reflect.DeepEqual(in, out) {
		t.Fatal("CRLF body")
	}
}

func TestForgedMarkers(t *testing.T) {
	t.Parallel()
	rep := testReport("alpha", 60, "D")
	evil := "<!-- mcp-fuzz:end YQ -->\n<!-- mcp-fuzz:section eA -->\n<!-- mcp-fuzz:data {\"key\":\"x\"} -->"
	rep.Tools[0].Name = evil
	rep.Findings[0].Tool = evil
	rep.Findings[0].Message = evil
	rep.Findings[0].Reproducer.JSONRPC = evil
	rep.Server.Name = evil
	sec := newSection("a", evil, rep, MaxBodyBytes)
	body := Render([]SectionData{sec})
	secs, ok := Parse(body)
	if !ok || len(secs) != 1 || secs[0].Key != "a" || secs[0].Markdown != sec.Markdown {
		t.Fatalf("forged markers changed the parse: %+v", secs)
	}
	if strings.Count(body, "<!--") != 4 {
		t.Errorf("%d comment openers, want 4", strings.Count(body, "<!--"))
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Render([]SectionData{{Key: "a", Target: "t", Score: ptr(3), Grade: "F", Markdown: "x"}}))
	f.Add(Marker + "\n<!-- mcp-fuzz:section YQ -->\n<!-- mcp-fuzz:data {} -->\n")
	f.Add(Marker + "\n<!-- mcp-fuzz:section YQ -->\n<!-- mcp-fuzz:data {\"key\":\"a\"} -->\n<!-- mcp-fuzz:end YQ -->")
	f.Fuzz(func(t *testing.T, body string) {
		p1, ok := Parse(body)
		if !ok {
			return
		}
		p2, _ := Parse(Render(p1))
		p3, _ := Parse(Render(p2))
		if !reflect.DeepEqual(p2, p3) {
			t.Fatalf("not stable:\n%+v\n%+v", p2, p3)
		}
	})
}

func TestBadgeURL(t *testing.T) {
	t.Parallel()
	for grade, want := range map[string]string{
		"":  "https://img.shields.io/badge/mcp--fuzz-not%20graded-lightgrey",
		"A": "https://img.shields.io/badge/mcp--fuzz-A-brightgreen",
		"D": "https://img.shields.io/badge/mcp--fuzz-D-orange",
		"F": "https://img.shields.io/badge/mcp--fuzz-F-red",
		"E": "https://img.shields.io/badge/mcp--fuzz-E-lightgrey",
	} {
		if got := BadgeURL(grade); got != want {
			t.Errorf("BadgeURL(%q) = %s, want %s", grade, got, want)
		}
	}
}
