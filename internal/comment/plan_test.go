package comment

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func issueComment(id int64, body string) *github.IssueComment {
	return &github.IssueComment{ID: &id, Body: &body}
}

// planned returns the body after putting key's section for rep into body
// ("" for no comment yet), as a first round of Upsert would.
func planned(t *testing.T, body, key string, rep *report.Report) string {
	t.Helper()
	var ours []*github.IssueComment
	if body != "" {
		ours = append(ours, issueComment(1, body))
	}
	p, err := planRound(ours, Section{Key: key, Report: rep}, previousScore(ours, key))
	if err != nil {
		t.Fatal(err)
	}
	return p.body
}

// bigReport is a report whose Markdown alone fills most of a comment.
func bigReport(i int) *report.Report {
	rep := testReport(fmt.Sprint("server", i), 50+i, "D")
	for j := range 400 {
		rep.Findings = append(rep.Findings, report.Finding{ID: fmt.Sprint(j), Severity: "error", Code: "accepted_invalid",
			Tool: "echo", Message: strings.Repeat("long message ", 20), Reproducer: report.Reproducer{JSONRPC: strings.Repeat("x", 500)}})
	}
	return rep
}

func TestPlanRound(t *testing.T) {
	t.Parallel()
	alpha80, alpha83 := testReport("alpha", 80, "C"), testReport("alpha", 83, "B")
	x := Render([]SectionData{{Key: "x", Target: "X", Markdown: "x details"}})
	y := Render([]SectionData{{Key: "y", Target: "Y", Markdown: "y details"}})
	at80 := planned(t, "", "a", alpha80)
	at83 := planned(t, at80, "a", alpha83) // shows +3
	xa := planned(t, x, "a", alpha83)
	var big string
	for i := range 8 {
		big = planned(t, big, fmt.Sprint("k", i), bigReport(i))
	}
	var full []SectionData
	for i := range 80 {
		s := SectionData{Key: fmt.Sprintf("k%02d", i), Target: strings.Repeat("t", targetMax)}
		s.Markdown = collapsed(s)
		full = append(full, s)
	}

	for _, tc := range []struct {
		name     string
		ours     []*github.IssueComment
		key      string         // default "a"
		rep      *report.Report // default alpha83
		previous *int

		write    op
		id       int64
		delete   []int64
		keys     []string // of the sections in the body
		others   []string
		prevShow *int // the Previous our section shows
		body     string
		err      error
	}{
		{name: "no comment yet: create",
			write: opCreate, keys: []string{"a"}},
		{name: "another key's comment: edit, ours appended", ours: []*github.IssueComment{issueComment(7, x)},
			write: opEdit, id: 7, keys: []string{"x", "a"}, others: []string{"x"}, body: xa},
		{name: "a new score: edit, the change since the previous run", ours: []*github.IssueComment{issueComment(7, at80)}, previous: ptr(80),
			write: opEdit, id: 7, keys: []string{"a"}, prevShow: ptr(80), body: at83},
		{name: "the same body: nothing to write", ours: []*github.IssueComment{issueComment(7, xa)},
			write: opNone, id: 7, keys: []string{"x", "a"}, others: []string{"x"}, body: xa},
		{name: "the same body with CR LF line ends: nothing to write", ours: []*github.IssueComment{issueComment(7, strings.ReplaceAll(xa, "\n", "\r\n"))},
			write: opNone, id: 7, keys: []string{"x", "a"}, others: []string{"x"}, body: xa},
		{name: "an identical re-run keeps the change shown", ours: []*github.IssueComment{issueComment(7, at83)}, previous: ptr(83),
			write: opNone, id: 7, keys: []string{"a"}, prevShow: ptr(80), body: at83},
		{name: "an identical re-run of a section fitted to the size limit keeps it too", ours: []*github.IssueComment{issueComment(7, big)},
			key: "k7", rep: bigReport(7), previous: ptr(57),
			write: opNone, id: 7, keys: []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"}, others: []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6"}, body: big},
		{name: "duplicates: merged into the oldest, first section of a key wins, the rest deleted",
			ours:  []*github.IssueComment{issueComment(7, x), issueComment(8, y), issueComment(9, Render([]SectionData{{Key: "x", Target: "X2"}, {Key: "a", Target: "A"}}))},
			write: opEdit, id: 7, delete: []int64{8, 9}, keys: []string{"x", "y", "a"}, others: []string{"x", "y"}},
		{name: "a duplicate of an up-to-date comment: deleted, nothing to edit", ours: []*github.IssueComment{issueComment(7, xa), issueComment(8, xa)},
			write: opNone, id: 7, delete: []int64{8}, keys: []string{"x", "a"}, others: []string{"x"}, body: xa},
		{name: "too large even collapsed", ours: []*github.IssueComment{issueComment(7, Render(full))},
			err: ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, rep := cmp.Or(tc.key, "a"), tc.rep
			if rep == nil {
				rep = alpha83
			}
			p, err := planRound(tc.ours, Section{Key: key, Report: rep}, tc.previous)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if p.write != tc.write || p.id != tc.id || !slices.Equal(p.delete, tc.delete) || !slices.Equal(p.others, tc.others) {
				t.Errorf("plan %v %d delete %v others %v; want %v %d delete %v others %v",
					p.write, p.id, p.delete, p.others, tc.write, tc.id, tc.delete, tc.others)
			}
			if tc.body != "" && p.body != tc.body {
				t.Errorf("body of %d bytes differs from the expected one of %d", len(p.body), len(tc.body))
			}
			if len(p.body) > MaxBodyBytes {
				t.Errorf("body of %d bytes", len(p.body))
			}
			secs, ok := Parse(p.body)
			var keys []string
			for _, s := range secs {
				keys = append(keys, s.Key)
			}
			if !ok || !slices.Equal(keys, tc.keys) {
				t.Errorf("body sections %v, want %v", keys, tc.keys)
			}
			i := slices.Index(keys, key)
			if i < 0 || !reflect.DeepEqual(secs[i], p.mine) {
				t.Errorf("our section in the body is not the one to verify:\n%+v\n%+v", secs[max(i, 0)], p.mine)
			}
			if !reflect.DeepEqual(p.mine.Previous, tc.prevShow) {
				t.Errorf("Previous = %v, want %v", p.mine.Previous, tc.prevShow)
			}
		})
	}
}

func TestPreviousScore(t *testing.T) {
	t.Parallel()
	graded := Render([]SectionData{{Key: "a", Score: ptr(70), Grade: "C"}})
	for _, tc := range []struct {
		name string
		ours []*github.IssueComment
		want *int
	}{
		{"no comment", nil, nil},
		{"no such section", []*github.IssueComment{issueComment(1, Render([]SectionData{{Key: "b", Score: ptr(1)}}))}, nil},
		{"not graded", []*github.IssueComment{issueComment(1, Render([]SectionData{{Key: "a"}}))}, nil},
		{"graded", []*github.IssueComment{issueComment(1, graded)}, ptr(70)},
		{"the oldest comment's wins", []*github.IssueComment{issueComment(1, graded), issueComment(2, Render([]SectionData{{Key: "a", Score: ptr(10)}}))}, ptr(70)},
		{"from a duplicate", []*github.IssueComment{issueComment(1, Render(nil)), issueComment(2, graded)}, ptr(70)},
	} {
		if got := previousScore(tc.ours, "a"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
