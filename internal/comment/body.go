package comment

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Marker is the first line of every comment this package writes.
const Marker = "<!-- mcp-fuzz:comment -->"

const (
	sectionPrefix = "<!-- mcp-fuzz:section "
	dataPrefix    = "<!-- mcp-fuzz:data "
	endPrefix     = "<!-- mcp-fuzz:end "
	markerSuffix  = " -->"
	targetMax     = 120
)

// SectionData is one section of the comment: the numbers its table row shows
// and the Markdown between its markers. Grade is "" and Score nil when the
// run was not graded; Previous is the score of the previous run of the same
// section, nil for a new section.
type SectionData struct {
	Key      string `json:"key"`
	Target   string `json:"target"`
	Score    *int   `json:"score"`
	Grade    string `json:"grade"`
	Crashes  int    `json:"crashes"`
	Hangs    int    `json:"hangs"`
	Accepted int    `json:"accepted"`
	Previous *int   `json:"previous"`
	// Untested is "6 of 9 tools untested", or "" when every tool was
	// called; for a static audit, [report.StaticLabel].
	Untested string `json:"untested,omitempty"`
	// Static is set for a static audit (--no-calls): it made no call, so
	// its row shows no count of crashes, hangs or silent accepts.
	Static   bool   `json:"static,omitempty"`
	Markdown string `json:"-"`
}

// CombinedGrade is the worst grade among sections, or "" when none is graded.
func CombinedGrade(sections []SectionData) string {
	worst := ""
	for _, s := range sections {
		if s.Grade != "" && s.Score != nil && (worst == "" || s.Grade > worst) {
			worst = s.Grade
		}
	}
	return worst
}

// BadgeURL is the shields.io static badge of grade ("" for not graded).
func BadgeURL(grade string) string {
	msg := score.NotGraded
	if grade != "" {
		msg = grade
	}
	return render.ShieldsURL(msg, render.GradeColour(grade))
}

// Render returns the whole comment body for sections, in their order: the
// marker line, a header with the combined grade as a badge and as text, a
// table with a row per section, then each section between its markers. It is
// deterministic, and [Parse] recovers sections from its output.
func Render(sections []SectionData) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	grade := CombinedGrade(sections)
	text := score.NotGraded
	if grade != "" {
		text = escape.MarkdownInline(grade, 20)
	}
	fmt.Fprintf(&b, "## mcp-fuzz: %s\n\n", plural(len(sections), "target", "targets"))
	fmt.Fprintf(&b, "![mcp-fuzz %s](%s) **Combined grade: %s**", text, BadgeURL(grade), text)
	if len(sections) > 1 && grade != "" {
		b.WriteString(" (the worst of the targets)")
	}
	b.WriteString("\n\n")
	if len(sections) > 0 {
		b.WriteString(tableHead)
		for _, s := range sections {
			b.WriteString(row(s))
		}
	}
	for _, s := range sections {
		b.WriteString("\n")
		b.WriteString(renderSection(s))
	}
	return b.String()
}

const tableHead = "| Target | Score | Grade | Crashes | Hangs | Silent accepts | Change |\n|---|---:|:-:|---:|---:|---:|---:|\n"

// row is the table row of s.
func row(s SectionData) string {
	points, grade := "—", score.NotGraded
	if s.Score != nil {
		points = strconv.Itoa(*s.Score)
	}
	if s.Grade != "" {
		grade = escape.MarkdownInline(s.Grade, 20)
	}
	if s.Untested != "" {
		grade += " (" + escape.MarkdownInline(s.Untested, 40) + ")"
	}
	counts := []string{strconv.Itoa(s.Crashes), strconv.Itoa(s.Hangs), strconv.Itoa(s.Accepted)}
	if s.Static {
		counts = []string{"—", "—", "—"}
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n",
		escape.MarkdownInline(orText(s.Target, s.Key), targetMax), points, grade,
		counts[0], counts[1], counts[2], change(s))
}

// change is the score change since the previous run: "+3", "−5", "±0",
// "new", or "—" when either run was not graded.
func change(s SectionData) string {
	switch {
	case s.Previous == nil:
		return "new"
	case s.Score == nil:
		return "—"
	}
	d := *s.Score - *s.Previous
	switch {
	case d > 0:
		return "+" + strconv.Itoa(d)
	case d < 0:
		return "−" + strconv.Itoa(-d)
	}
	return "±0"
}

// encodeKey makes a key safe inside a marker.
func encodeKey(key string) string { return base64.RawURLEncoding.EncodeToString([]byte(key)) }

// sanitize keeps section Markdown from forging or closing markers: "<!--"
// is broken with a zero-width space (as package escape does), and carriage
// returns are dropped because GitHub may turn line ends into CR LF.
func sanitize(md string) string {
	md = strings.ReplaceAll(md, "\r", "")
	return strings.ReplaceAll(md, "<!--", "<!-\u200b-")
}

func renderSection(s SectionData) string {
	s.Key = strings.ToValidUTF8(s.Key, "\uFFFD")
	enc := encodeKey(s.Key)
	data, _ := json.Marshal(s) // plain fields; cannot fail. HTML-escapes "<" and ">".
	data = escape.JSON(data)
	return sectionPrefix + enc + markerSuffix + "\n" +
		dataPrefix + string(data) + markerSuffix + "\n" +
		sanitize(s.Markdown) + "\n" +
		endPrefix + enc + markerSuffix + "\n"
}

// Parse returns the sections of body in order, and whether body is one of
// ours (its first line is [Marker]). Malformed sections are skipped.
func Parse(body string) ([]SectionData, bool) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	first, rest, _ := strings.Cut(body, "\n")
	if strings.TrimSpace(first) != Marker {
		return nil, false
	}
	var out []SectionData
	ends := endMarkers(rest)
	all := len(rest)
	for {
		i := lineIndex(rest, sectionPrefix)
		if i < 0 {
			return out, true
		}
		rest = rest[i:]
		s, n, ok := parseSection(rest, all-len(rest), ends)
		if ok {
			out = append(out, s)
			rest = rest[n:]
			continue
		}
		rest = rest[len(sectionPrefix):]
	}
}

// lineIndex is the index of the first line of s that starts with prefix.
func lineIndex(s, prefix string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], prefix)
		if i < 0 {
			return -1
		}
		if off+i == 0 || s[off+i-1] == '\n' {
			return off + i
		}
		off += i + 1
	}
}

// endMarkers indexes the end markers in s: for each encoded key, the
// offsets, ascending, of the "\n" that starts its end marker line. Parse
// looks a section's end up here rather than search the rest of the body for
// it, which took time quadratic in the body for a body of many sections
// that never end.
func endMarkers(s string) map[string][]int {
	ends := map[string][]int{}
	lead := "\n" + endPrefix
	for off := 0; ; {
		i := strings.Index(s[off:], lead)
		if i < 0 {
			return ends
		}
		q := off + i
		after := s[q+len(lead):]
		n := 0
		for n < len(after) && isKeyByte(after[n]) {
			n++
		}
		if strings.HasPrefix(after[n:], markerSuffix) {
			ends[after[:n]] = append(ends[after[:n]], q)
		}
		off = q + len(lead) + n
	}
}

// isKeyByte reports whether c can be in an encoded key (base64url).
func isKeyByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// parseSection parses the section at the start of s, which is at offset
// base of the string ends indexes (see [endMarkers]), and returns how many
// bytes it used.
func parseSection(s string, base int, ends map[string][]int) (SectionData, int, bool) {
	var sec SectionData
	line, rest, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasSuffix(line, markerSuffix) {
		return sec, 0, false
	}
	enc := strings.TrimSuffix(strings.TrimPrefix(line, sectionPrefix), markerSuffix)
	key, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || encodeKey(string(key)) != enc {
		return sec, 0, false
	}
	data, rest, ok := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(data, dataPrefix) || !strings.HasSuffix(data, markerSuffix) {
		return sec, 0, false
	}
	js := strings.TrimSuffix(strings.TrimPrefix(data, dataPrefix), markerSuffix)
	if len(data) < len(dataPrefix)+len(markerSuffix) || json.Unmarshal([]byte(js), &sec) != nil || sec.Key != string(key) {
		return SectionData{}, 0, false
	}
	end := "\n" + endPrefix + enc + markerSuffix
	from := base + len(s) - len(rest) // the offset of rest
	at := ends[enc]
	k := sort.SearchInts(at, from)
	if k == len(at) {
		return SectionData{}, 0, false
	}
	j := at[k] - from
	sec.Markdown = rest[:j]
	return sec, len(s) - len(rest) + j + len(end), true
}

// newSection builds the section of a report; its Markdown is the report's
// Markdown within maxBytes, headings one level down.
func newSection(key, target string, rep *report.Report, maxBytes int) SectionData {
	s := SectionData{Key: key, Target: oneLine(target)}
	if s.Target == "" {
		s.Target = oneLine(render.TargetName(rep))
	}
	if rep.Graded && rep.Score != nil {
		v := *rep.Score
		s.Score = &v
		if rep.Grade != nil {
			s.Grade = *rep.Grade
		}
	}
	s.Crashes, s.Hangs, s.Accepted = rep.Summary.Crash, rep.Summary.Hang, rep.Summary.Accepted
	s.Untested, s.Static = score.Untested(rep), rep.Static
	s.Markdown = sectionMarkdown(rep, maxBytes)
	return s
}

// sectionMarkdown renders rep within maxBytes with headings demoted; it
// shrinks the render budget by what demotion added.
func sectionMarkdown(rep *report.Report, maxBytes int) string {
	budget := maxBytes
	for budget > 0 {
		md := sanitize(demote(render.MarkdownLimit(rep, budget)))
		if len(md) <= maxBytes {
			return md
		}
		budget -= len(md) - maxBytes
	}
	return ""
}

// demote moves every ATX heading outside fenced code one level down.
func demote(md string) string {
	lines := strings.SplitAfter(md, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimRight(l, "\n")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`~") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			c := t[:1]
			n := len(t) - len(strings.TrimLeft(t, c))
			fence = strings.Repeat(c, n)
			continue
		}
		h := len(t) - len(strings.TrimLeft(t, "#"))
		if h >= 1 && h < 6 && (len(t) == h || t[h] == ' ') {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "")
}

// collapsed is the Markdown of a section whose details do not fit.
func collapsed(s SectionData) string {
	return collapsedNote + "\n\n" + tableHead + row(s)
}

const collapsedNote = "_Details collapsed to keep this comment under 65,536 characters: see the job summary._"

func isCollapsed(md string) bool { return strings.HasPrefix(md, collapsedNote) }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
