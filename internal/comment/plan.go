package comment

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// minDetail is the smallest Markdown budget worth giving a section before it
// is collapsed to its table row.
const minDetail = 2048

// plan is what one round of [Upserter.Upsert] writes, decided by [planRound]
// from the comments it read and performed by [Upserter.apply].
type plan struct {
	write  op          // opCreate, opEdit or opNone
	id     int64       // the comment edited or left alone (the oldest of ours); 0 with opCreate
	body   string      // the whole comment body after this round
	delete []int64     // duplicates of ours, merged into the oldest
	mine   SectionData // our section as it is in body, to verify
	others []string    // keys of the other sections, which must survive
}

// planRound decides one round: ours are our comments, oldest first; s is
// the section to put in; previous is the score s's section held before
// this run (see [previousScore]). The sections of all of ours are merged
// into the oldest, in order, the first of a key winning; the section of
// s.Key is replaced or appended; the body is fitted under [MaxBodyBytes].
// With none of ours the plan creates a comment; it edits the oldest only
// when its body changes, and deletes every other one.
func planRound(ours []*github.IssueComment, s Section, previous *int) (plan, error) {
	sections := mergedSections(ours)
	idx := -1
	for i, sec := range sections {
		if sec.Key == s.Key {
			idx = i
		}
	}
	var p plan
	for _, sec := range sections {
		if sec.Key != s.Key {
			p.others = append(p.others, sec.Key)
		}
	}
	mine := newSection(s.Key, s.Target, s.Report, MaxBodyBytes)
	mine.Previous = previous
	body, sections, err := place(sections, idx, mine, s.Report)
	if err != nil {
		return plan{}, err
	}
	if idx < 0 {
		idx = len(sections) - 1
	}
	p.body, p.mine = body, sections[idx]
	if len(ours) == 0 {
		p.write = opCreate
		return p, nil
	}
	p.id = ours[0].GetID()
	if body != strings.ReplaceAll(ours[0].GetBody(), "\r\n", "\n") {
		p.write = opEdit
	}
	for _, dup := range ours[1:] {
		p.delete = append(p.delete, dup.GetID())
	}
	return p, nil
}

// place puts mine into sections, at idx or appended when idx is -1, and
// returns the fitted body and sections. An identical re-run keeps the
// change shown since the run before, so the body does not change: when our
// section comes out as it is, in full or as fitted to the size limit, it
// keeps its Previous.
func place(sections []SectionData, idx int, mine SectionData, rep *report.Report) (string, []SectionData, error) {
	if idx < 0 {
		sections = append(sections, mine)
		body, err := fit(sections, len(sections)-1, rep)
		return body, sections, err
	}
	old := sections[idx]
	sections[idx] = mine
	if sameNumbers(old, mine) {
		keep := slices.Clone(sections)
		keep[idx].Previous = old.Previous
		body, err := fit(keep, idx, rep)
		if old.Markdown == mine.Markdown || err == nil && reflect.DeepEqual(keep[idx], old) {
			return body, keep, err
		}
	}
	body, err := fit(sections, idx, rep)
	return body, sections, err
}

// sameNumbers reports whether a and b are equal but for their Markdown and
// Previous.
func sameNumbers(a, b SectionData) bool {
	a.Markdown, b.Markdown = "", ""
	a.Previous, b.Previous = nil, nil
	return reflect.DeepEqual(a, b)
}

// previousScore is the score the section of key holds in ours, nil when
// there is no such section or it was not graded.
func previousScore(ours []*github.IssueComment, key string) *int {
	for _, sec := range mergedSections(ours) {
		if sec.Key == key && sec.Score != nil {
			v := *sec.Score
			return &v
		}
	}
	return nil
}

// mergedSections is the sections of ours, in order, the first of each key.
func mergedSections(ours []*github.IssueComment) []SectionData {
	var sections []SectionData
	seen := map[string]bool{}
	for _, c := range ours {
		secs, _ := Parse(c.GetBody())
		for _, s := range secs {
			if !seen[s.Key] {
				seen[s.Key] = true
				sections = append(sections, s)
			}
		}
	}
	return sections
}

// fit returns the body of sections within MaxBodyBytes: our section (at
// index our) is re-rendered with a smaller budget, the largest other
// sections are collapsed to their table row, and at last ours too. It
// changes the Markdown of sections to what the body holds.
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
