package action

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// GitHub shows at most this many ::error and ::warning annotations of one
// step ("10 warning annotations, 10 error annotations, and 10 notice
// annotations per step", actions/toolkit docs/problem-matchers.md) and
// silently drops the rest, first come first served. Every annotation the
// action prints counts, so the findings get what the rest leave.
const (
	MaxErrorAnnotations   = 10
	MaxWarningAnnotations = 10
)

// Annotation kinds, named as the workflow command.
const (
	kindError   = "error"
	kindWarning = "warning"
)

// annotation is one ::error or ::warning line to print.
type annotation struct {
	kind  string
	title string // empty: none
	msg   string
	// group is set for a group of findings, which the job summary lists
	// anyway; other annotations (a missed gate, a file not written) that do
	// not fit are still printed as plain log lines.
	group bool
}

// room is how many annotations of each kind may still be printed.
type room struct{ errors, warnings int }

func (r *room) of(kind string) *int {
	if kind == kindError {
		return &r.errors
	}
	return &r.warnings
}

// plan returns the annotations to print, in order, and those that do not
// fit. items come in priority order; each takes one annotation of its kind
// while there is room. When some do not fit, one closing line says how many
// were left out, so the total stays within r: it is of the kind it speaks
// for (error when any error is left out) and takes a free place, else the
// last group of findings' place, of that kind or else of the other. Without
// such a place, the closing line is nil.
func plan(items []annotation, r room) (shown, dropped []annotation, closing *annotation) {
	left := r
	for _, a := range items {
		if n := left.of(a.kind); *n > 0 {
			*n--
			shown = append(shown, a)
		} else {
			dropped = append(dropped, a)
		}
	}
	if len(dropped) == 0 {
		return shown, nil, nil
	}
	kind := kindWarning
	for _, a := range dropped {
		if a.kind == kindError {
			kind = kindError
		}
	}
	// The closing line needs a place: a free one of its kind, else that of
	// the last group of findings shown of its kind (a missed gate or a
	// message of the action's own is never pushed out), else one of the
	// other kind.
	place := func(kind string) bool {
		if *left.of(kind) > 0 {
			return true
		}
		for i := len(shown) - 1; i >= 0; i-- {
			if shown[i].kind == kind && shown[i].group {
				dropped = append([]annotation{shown[i]}, dropped...)
				shown = slices.Delete(shown, i, i+1)
				return true
			}
		}
		return false
	}
	if !place(kind) {
		kind = other(kind)
		if !place(kind) {
			return shown, dropped, nil
		}
	}
	closing = &annotation{kind: kind, msg: "mcp-fuzz: " + moreText(dropped)}
	return shown, dropped, closing
}

func other(kind string) string {
	if kind == kindError {
		return kindWarning
	}
	return kindError
}

// moreText says what the closing line of [plan] leaves out and where it is:
// "and 2 more groups of findings, in the job summary (GitHub shows …)".
func moreText(dropped []annotation) string {
	var groups, others int
	for _, a := range dropped {
		if a.group {
			groups++
		} else {
			others++
		}
	}
	var parts []string
	if others > 0 {
		parts = append(parts, plural(others, "more message", "more messages")+", in the log")
	}
	if groups > 0 {
		parts = append(parts, plural(groups, "more group of findings", "more groups of findings")+", in the job summary")
	}
	return fmt.Sprintf("and %s (GitHub shows %d error and %d warning annotations per step)",
		strings.Join(parts, ", and "), MaxErrorAnnotations, MaxWarningAnnotations)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// findingGroup is the findings of one (tool, code).
type findingGroup struct {
	tool, code string
	severity   report.Severity // the worst
	findings   []report.Finding
}

// groupFindings groups the findings worth an annotation (critical, error,
// warning) by (tool, code): worst severity first, then the largest group,
// then report order.
func groupFindings(findings []report.Finding) []findingGroup {
	var groups []findingGroup
	index := map[[2]string]int{}
	for _, f := range findings {
		if f.Severity.Rank() > report.SeverityWarning.Rank() {
			continue
		}
		k := [2]string{f.Tool, f.Code}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, findingGroup{tool: f.Tool, code: f.Code, severity: f.Severity})
		}
		g := &groups[i]
		if f.Severity.Rank() < g.severity.Rank() {
			g.severity = f.Severity
		}
		g.findings = append(g.findings, f)
	}
	slices.SortStableFunc(groups, func(a, b findingGroup) int {
		if c := cmp.Compare(a.severity.Rank(), b.severity.Rank()); c != 0 {
			return c
		}
		return cmp.Compare(len(b.findings), len(a.findings))
	})
	return groups
}

// maxListed is how many case ids a group's annotation names.
const maxListed = 3

// annotation describes the group in one annotation: the title names the
// code and the tool, the message the count, the first cases and the worst
// finding's message, as "crash in get_weather: 7 cases (get_weather/null/city,
// …): the server exited …".
func (g findingGroup) annotation() annotation {
	where := ""
	switch {
	case g.tool != "":
		where = " in " + escape.Terminal(g.tool, 80)
	case g.findings[0].CaseID == "":
		// Findings of the server's, outside any tool call.
		where = " in the server"
	}
	worst := g.findings[0]
	for _, f := range g.findings {
		if f.Severity == g.severity {
			worst = f
			break
		}
	}
	kind := kindError
	if g.severity == report.SeverityWarning {
		kind = kindWarning
	}
	noun := "case"
	for _, f := range g.findings {
		if f.CaseID == "" {
			noun = "finding"
		}
	}
	if len(g.findings) != 1 {
		noun += "s"
	}
	names := make([]string, 0, maxListed+1)
	for i, f := range g.findings {
		if i == maxListed {
			names = append(names, fmt.Sprintf("and %d more", len(g.findings)-maxListed))
			break
		}
		name := f.CaseID
		if name == "" {
			name = strings.TrimSuffix(f.ID, "#"+f.Code)
		}
		names = append(names, escape.Terminal(name, 120))
	}
	return annotation{
		kind:  kind,
		title: "mcp-fuzz: " + g.code + where,
		msg: fmt.Sprintf("%s%s: %d %s (%s): %s", g.code, where, len(g.findings), noun,
			strings.Join(names, ", "), escape.Terminal(worst.Message, 500)),
		group: true,
	}
}

// annotations lists what [runner.annotate] prints, in priority order: the
// missed gates, then the action's own errors and warnings (a file not
// written), then the findings grouped by (tool, code), worst first.
func annotations(gates, errs, warnings []string, findings []report.Finding) []annotation {
	var items []annotation
	for _, g := range gates {
		items = append(items, annotation{kind: kindError, msg: "mcp-fuzz: gate missed: " + g})
	}
	for _, e := range errs {
		items = append(items, annotation{kind: kindError, msg: "mcp-fuzz: " + e})
	}
	for _, w := range warnings {
		items = append(items, annotation{kind: kindWarning, msg: "mcp-fuzz: " + w})
	}
	for _, g := range groupFindings(findings) {
		items = append(items, g.annotation())
	}
	return items
}

// annotate prints items (see [annotations]) within what is left of the
// step's annotations after those already printed and reserve, keeping back
// places for what may still come (the pull request comment's warning).
func (r *runner) annotate(items []annotation, reserve room) {
	left := room{
		errors:   MaxErrorAnnotations - reserve.errors,
		warnings: MaxWarningAnnotations - reserve.warnings,
	}
	if r.count != nil {
		left.errors -= r.count.errors
		left.warnings -= r.count.warnings
	}
	shown, dropped, closing := plan(items, room{max(left.errors, 0), max(left.warnings, 0)})
	for _, a := range shown {
		r.emit(a)
	}
	if closing != nil {
		r.emit(*closing)
	}
	// What did not fit stays in the log, as plain lines; groups of findings
	// are in the job summary.
	for _, a := range dropped {
		if !a.group {
			fmt.Fprintf(r.env.Stdout, "%s: %s\n", a.kind, escape.Terminal(a.msg, 0))
		}
	}
}

func (r *runner) emit(a annotation) {
	gh := r.gh
	// go-githubactions escapes line breaks (no line of a message starts a
	// workflow command), not terminal escapes: a gate's text names finding
	// ids, which hold the server's tool names.
	if a.title != "" {
		gh = gh.WithFieldsMap(map[string]string{"title": escape.Terminal(a.title, 0)})
	}
	msg := escape.XMLClean(a.msg, 0)
	if a.kind == kindError {
		gh.Errorf("%s", msg)
	} else {
		gh.Warningf("%s", msg)
	}
}

// annotationCounter passes what the action prints through to w, counting
// the ::error and ::warning workflow commands among its lines (a command
// is a whole line; its name is not case sensitive). It is used from one
// goroutine.
type annotationCounter struct {
	w                io.Writer
	errors, warnings int
	line             []byte // the start of the current line, up to prefixLen bytes
	midLine          bool   // past the start of the current line
}

const prefixLen = len("::warning ")

func (c *annotationCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			c.check()
			c.line, c.midLine = c.line[:0], false
			continue
		}
		if !c.midLine {
			c.line = append(c.line, b)
			if len(c.line) == prefixLen {
				c.check()
				c.midLine = true
			}
		}
	}
	return c.w.Write(p)
}

// check counts the line started in c.line, once.
func (c *annotationCounter) check() {
	if c.midLine {
		return
	}
	l := bytes.ToLower(c.line)
	switch {
	case bytes.HasPrefix(l, []byte("::error ")) || bytes.HasPrefix(l, []byte("::error::")):
		c.errors++
	case bytes.HasPrefix(l, []byte("::warning ")) || bytes.HasPrefix(l, []byte("::warning:")):
		c.warnings++
	}
	c.midLine = true
}
