package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// lifecycle runs the plan of the lifecycle checks (see [planLifecycle]) on
// the session of r, after every tool ran: for each group, create, read,
// delete, read again; for a group whose create tool takes a parent's id,
// also create a parent and a child, delete the parent and read the child.
// A create or read that fails skips the check with why; a call that
// crashed, hung or broke the protocol fails it with the verdict's code.
type lifecycle struct {
	r   *runner
	rep *report.Report // the report so far: the audit's valid calls, the era
	// calls are the tools/call lines of the check being run.
	calls []json.RawMessage
	// made counts the creates, for [lifecycle.freshNames].
	made int
	// hangs counts the calls that got no complete answer within the
	// timeout: after maxCheckHangs of them the remaining checks are
	// skipped, and nothing more is cleaned up, so that a server whose
	// deletes all hang costs a few timeouts, not a few per resource.
	hangs int
}

// hangsSpent is the skip detail of a check the lifecycle checks' hangs
// left no room for ("" while there is room).
func (lc *lifecycle) hangsSpent() string {
	if lc.hangs < maxCheckHangs {
		return ""
	}
	return fmt.Sprintf("not run: %d calls of the lifecycle checks before this one got no answer within the timeout", lc.hangs)
}

// lifecyclePhase runs the lifecycle checks of a on its live session (see
// [phases]), and records what they found to check in its report.
func lifecyclePhase(ctx context.Context, a *audit) []report.Check {
	var checks []report.Check
	a.rep.Lifecycle, checks = runLifecycle(ctx, a.live, a.rep, a.tools)
	return checks
}

// runLifecycle plans and runs the lifecycle checks of tools; audited are
// the audit's tools (their valid calls give arguments).
func runLifecycle(ctx context.Context, r *runner, rep *report.Report, tools []tool) (*report.Lifecycle, []report.Check) {
	r.owner, r.last = nil, nil
	plan := planLifecycle(tools, r.cfg.skipReason, r.cfg.Lifecycle)
	lc := &lifecycle{r: r, rep: rep}
	r.progress(Event{Kind: EventPhase, Total: len(plan.groups) + len(plan.skipped),
		Reason: fmt.Sprintf("lifecycle checks (--sequential): %s detected", plural(len(plan.groups), "group", "groups"))})
	out := slices.Clone(plan.skipped)
	for _, g := range plan.groups {
		if ctx.Err() != nil {
			break
		}
		if why := lc.hangsSpent(); why != "" {
			out = append(out, lc.skipped(g, why)...)
			continue
		}
		out = append(out, lc.check(ctx, g)...)
	}
	slices.SortStableFunc(out, func(a, b report.Check) int { return strings.Compare(a.ID, b.ID) })
	for i := range out {
		r.progress(Event{Kind: EventCheck, Check: &out[i]})
	}
	return &report.Lifecycle{Groups: len(plan.groups), Summary: plan.summary}, out
}

// stepError ends a check early: the check as it stands.
type stepError struct{ c report.Check }

func (e *stepError) Error() string { return e.c.Detail }

// lcCheck is a check being run and what its steps said so far.
type lcCheck struct {
	c     report.Check
	steps []string
}

func (k *lcCheck) note(format string, args ...any) {
	k.steps = append(k.steps, fmt.Sprintf(format, args...))
}

// stop ends the check with status and code, its detail the steps so far
// and why.
func (k *lcCheck) stop(status, code, why string) *stepError {
	k.c.Status, k.c.Code = status, code
	k.c.Detail = strings.Join(append(k.steps, why), "; ")
	return &stepError{k.c}
}

// ownCheck and orphanCheck are g's checks before they run.
func ownCheck(g *lcGroup) report.Check {
	return report.Check{
		ID: report.CheckGroupLifecycle + "/" + g.noun, Group: report.CheckGroupLifecycle,
		Title:    lifecycleTitle(g.noun),
		Expected: fmt.Sprintf("after %s succeeds, %s answers isError or a JSON-RPC error", g.delete.Name, g.read.Name),
	}
}

func orphanCheck(g *lcGroup) report.Check {
	return report.Check{
		ID: report.CheckGroupLifecycle + "/" + g.parent.noun + "/" + g.noun, Group: report.CheckGroupLifecycle,
		Title:    fmt.Sprintf("%s is not readable once its %s is deleted (an observation)", withArticle(g.noun), g.parent.noun),
		Expected: fmt.Sprintf("after %s deletes the parent, %s answers isError or a JSON-RPC error", g.parent.delete.Name, g.read.Name),
	}
}

// skipped are g's checks, skipped with why.
func (lc *lifecycle) skipped(g *lcGroup, why string) []report.Check {
	out := []report.Check{ownCheck(g)}
	if g.parent != nil {
		out = append(out, orphanCheck(g))
	}
	for i := range out {
		out[i].Status, out[i].Detail = report.CheckSkip, why
	}
	return out
}

// check runs the checks of g: its own lifecycle, and the parent/child
// check when it has a parent.
func (lc *lifecycle) check(ctx context.Context, g *lcGroup) []report.Check {
	var out []report.Check
	own := &lcCheck{c: ownCheck(g)}
	lc.calls = nil
	out = append(out, lc.finish(own, lc.own(ctx, g, own)))
	if g.parent != nil {
		if why := lc.hangsSpent(); why != "" {
			c := orphanCheck(g)
			c.Status, c.Detail = report.CheckSkip, why
			return append(out, c)
		}
		pc := &lcCheck{c: orphanCheck(g)}
		lc.calls = nil
		out = append(out, lc.finish(pc, lc.orphan(ctx, g, pc)))
	}
	return out
}

// finish is k's check once its steps ran (err: they stopped early), with
// the calls made, redacted.
func (lc *lifecycle) finish(k *lcCheck, err *stepError) report.Check {
	c := k.c
	if err != nil {
		c = err.c
	}
	for _, call := range lc.calls {
		c.Calls = append(c.Calls, json.RawMessage(lc.r.leak.Redact(string(call))))
	}
	if c.Request != nil {
		c.Request = json.RawMessage(lc.r.leak.Redact(string(c.Request)))
	}
	return c
}

// own creates a resource of g, reads it, deletes it and reads it again
// (creating a parent first, and deleting it after, when g has one).
func (lc *lifecycle) own(ctx context.Context, g *lcGroup, k *lcCheck) *stepError {
	createArgs, err := lc.argsFor(g.create, k)
	if err != nil {
		return err
	}
	if g.parent != nil {
		parentID, err := lc.create(ctx, g.parent, k)
		if err != nil {
			return err
		}
		defer lc.bestEffortDelete(ctx, g.parent, parentID)
		createArgs[g.parentArg] = idValue(parentID, idArg{})
	}
	id, err := lc.createWith(ctx, g, createArgs, k)
	if err != nil {
		return err
	}
	if err := lc.readBack(ctx, g, id, k); err != nil {
		return err
	}
	if err := lc.remove(ctx, g, id, k); err != nil {
		return err
	}
	return lc.readGone(ctx, g, id, k, report.CodeStaleRead, goneRead{
		doing:   "reading it after the delete",
		still:   fmt.Sprintf("%s after the delete still answered with it", g.read.Name),
		silent:  fmt.Sprintf("%s after the delete answered success", g.read.Name),
		refused: fmt.Sprintf("%s after the delete refused", g.read.Name),
	})
}

// goneRead is what the steps of [lifecycle.readGone] say: the failed
// read's doing (for [lifecycle.failed]), and the starts of the detail of
// an answer that still names the id, of one that answers without it, and
// of a refusal.
type goneRead struct {
	doing, still, silent, refused string
}

// readGone reads id with g's read tool once it (or its parent) is deleted,
// and ends k: a failed call fails it, an answer that still names id fails
// it with code and the request as reproducer, an answer without id or a
// refusal passes it.
func (lc *lifecycle) readGone(ctx context.Context, g *lcGroup, id any, k *lcCheck, code string, say goneRead) *stepError {
	rc, text := lc.readCall(ctx, g, id)
	switch {
	case rc.Verdict.Failure():
		return lc.failed(k, g.read, rc, say.doing)
	case rc.Verdict.Confirms() && mentions(text, id):
		k.c.Request = lc.calls[len(lc.calls)-1]
		return k.stop(report.CheckFail, code, say.still+": "+excerpt(text, 160))
	case rc.Verdict.Confirms():
		k.note("%s without naming %s (%s)", say.silent, idText(id), excerpt(text, 80))
	default:
		k.note("%s: %s", say.refused, orText(answerOf(rc), string(rc.Verdict)))
	}
	k.c.Status = report.CheckPass
	k.c.Detail = strings.Join(k.steps, "; ")
	return nil
}

// orphan creates a parent and a child of it, deletes the parent and reads
// the child: still readable is an observation (orphan_readable, info).
func (lc *lifecycle) orphan(ctx context.Context, g *lcGroup, k *lcCheck) *stepError {
	createArgs, err := lc.argsFor(g.create, k)
	if err != nil {
		return err
	}
	parentID, err := lc.create(ctx, g.parent, k)
	if err != nil {
		return err
	}
	createArgs[g.parentArg] = idValue(parentID, idArg{})
	id, err := lc.createWith(ctx, g, createArgs, k)
	if err != nil {
		lc.bestEffortDelete(ctx, g.parent, parentID)
		return err
	}
	defer lc.bestEffortDelete(ctx, g, id)
	if err := lc.remove(ctx, g.parent, parentID, k); err != nil {
		return err
	}
	return lc.readGone(ctx, g, id, k, report.CodeOrphanReadable, goneRead{
		doing:   "reading the child after its parent's delete",
		still:   fmt.Sprintf("%s still answered with the %s after its %s was deleted", g.read.Name, g.noun, g.parent.noun),
		silent:  fmt.Sprintf("%s answered success", g.read.Name),
		refused: fmt.Sprintf("%s refused the child of the deleted %s", g.read.Name, g.parent.noun),
	})
}

// create makes a resource of g with its create tool's valid arguments
// and returns its id.
func (lc *lifecycle) create(ctx context.Context, g *lcGroup, k *lcCheck) (any, *stepError) {
	args, err := lc.argsFor(g.create, k)
	if err != nil {
		return nil, err
	}
	return lc.createWith(ctx, g, args, k)
}

// createWith calls g's create tool with args and finds the new
// resource's id in its answer.
func (lc *lifecycle) createWith(ctx context.Context, g *lcGroup, args map[string]any, k *lcCheck) (any, *stepError) {
	if fresh := lc.freshNames(g, args); fresh != nil {
		args = fresh
	}
	rc, text := lc.call(ctx, g.create, args)
	if !rc.Verdict.Confirms() {
		return nil, lc.failed(k, g.create, rc, "creating a "+g.noun)
	}
	var structured json.RawMessage
	if a := lc.r.lastAnswer; a != nil {
		structured = a.StructRaw
	}
	id, how := findID(text, structured, g.noun, args)
	if id == nil {
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: no id of the new %s found in %s's answer (no JSON field id, %s_id or name, no UUID, no name of the arguments echoed): %s", g.noun, g.create.Name, g.noun, excerpt(text, 120)))
	}
	if strings.Contains(fmt.Sprint(id), leak.Redacted) {
		// The answer was redacted before it reached the check: the id
		// carries a secret's value, and what is left of it names nothing
		// the server made. Sent back, its refusal would read as the
		// server's failure to find its own resource.
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: the id of the new %s in %s's answer (%s) carries the value of a secret, redacted, so it cannot be sent back", g.noun, g.create.Name, how))
	}
	if n := len(fmt.Sprint(id)); n > maxLifecycleIDLen {
		// The server's id goes back to it in the read and the delete, and
		// into the reproducer: bounded like a taskId.
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: %s made an id of %d bytes (%s; over %d): %s", g.create.Name, n, how, maxLifecycleIDLen, excerpt(fmt.Sprint(id), 64)))
	}
	k.note("%s made %s (%s)", g.create.Name, idText(id), how)
	return id, nil
}

// readBack reads the resource just made: it must be there.
func (lc *lifecycle) readBack(ctx context.Context, g *lcGroup, id any, k *lcCheck) *stepError {
	rc, _ := lc.readCall(ctx, g, id)
	if !rc.Verdict.Confirms() {
		return lc.failed(k, g.read, rc, fmt.Sprintf("reading the %s just made (%s in %s)", g.noun, idText(id), g.readArg.name))
	}
	k.note("%s read it", g.read.Name)
	return nil
}

// remove deletes the resource of g named id.
func (lc *lifecycle) remove(ctx context.Context, g *lcGroup, id any, k *lcCheck) *stepError {
	args, err := lc.argsFor(g.delete, k)
	if err != nil {
		return err
	}
	args[g.deleteArg.name] = idValue(id, g.deleteArg)
	rc, _ := lc.call(ctx, g.delete, args)
	if !rc.Verdict.Confirms() {
		return lc.failed(k, g.delete, rc, fmt.Sprintf("deleting the %s (%s)", g.noun, idText(id)))
	}
	k.note("%s deleted the %s", g.delete.Name, g.noun)
	return nil
}

// bestEffortDelete deletes what a check made and no longer needs; what
// comes back does not matter.
func (lc *lifecycle) bestEffortDelete(ctx context.Context, g *lcGroup, id any) {
	args, err := lc.argsFor(g.delete, &lcCheck{})
	if err != nil || ctx.Err() != nil || lc.r.s == nil || lc.hangsSpent() != "" {
		return
	}
	args[g.deleteArg.name] = idValue(id, g.deleteArg)
	lc.call(ctx, g.delete, args)
}

// readCall calls g's read tool for id.
func (lc *lifecycle) readCall(ctx context.Context, g *lcGroup, id any) (report.Case, string) {
	args, err := lc.argsFor(g.read, &lcCheck{})
	if err != nil {
		return report.Case{Verdict: report.GeneratorGap, Detail: err.Error()}, ""
	}
	args[g.readArg.name] = idValue(id, g.readArg)
	return lc.call(ctx, g.read, args)
}

// failed stops k after a step whose call did not succeed: a crash, hang or
// protocol violation fails the check with the verdict's code; anything
// else (an error answer) skips it with why, since the arguments may be
// synthetic.
func (lc *lifecycle) failed(k *lcCheck, t tool, rc report.Case, doing string) *stepError {
	why := fmt.Sprintf("%s with %s: %s", doing, t.Name, rc.Verdict)
	if d := answerOf(rc); d != "" {
		why += " (" + d + ")"
	}
	if rc.Verdict.Failure() {
		k.c.Crash = rc.Crash
		k.c.Request = lc.calls[len(lc.calls)-1]
		return k.stop(report.CheckFail, string(rc.Verdict), why)
	}
	return k.stop(report.CheckSkip, "", "not run to the end: "+why)
}

// call makes one tools/call of t with args on the runner's session and
// returns its judgement as a valid call, and the answer's text and
// structured content.
func (lc *lifecycle) call(ctx context.Context, t tool, args map[string]any) (report.Case, string) {
	raw, _ := json.Marshal(args)
	lc.calls = append(lc.calls, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, len(lc.calls)+2, repro.Params(lc.rep, t.Name, raw)))
	rc := report.Case{ID: t.Name + "/lifecycle", Kind: report.KindValid, Flags: []string{}}
	r := lc.r
	if !r.ensureSession(ctx) {
		rc.Verdict, rc.Detail = report.NotRun, orText(r.endedEarly, "no session")
		return rc, ""
	}
	r.lastAnswer = nil
	r.timedOut = false
	r.runCase(ctx, t, casegen.Case{ID: rc.ID, Tool: t.Name, Kind: casegen.Valid, Arguments: raw}, &rc, false, t.OutputValidator())
	if r.timedOut {
		lc.hangs++
	}
	text := ""
	if a := r.lastAnswer; a != nil {
		text = a.Text + string(a.StructRaw)
	}
	return rc, text
}

// argsFor are the arguments t is called with before the id goes in: the
// config example, else the audit's valid call if it succeeded, else a
// generated valid call.
func (lc *lifecycle) argsFor(t tool, k *lcCheck) (map[string]any, *stepError) {
	if ex, ok := lc.r.cfg.Examples[t.Name]; ok {
		return cloneArgs(ex), nil
	}
	for _, rt := range lc.rep.Tools {
		if rt.Name != t.Name || len(rt.Cases) == 0 {
			continue
		}
		c := rt.Cases[0]
		var m map[string]any
		if c.Kind == report.KindValid && c.Verdict.Confirms() && c.ArgumentsDigest == nil && decodeArgs(c.Arguments, &m) == nil && m != nil {
			return m, nil
		}
	}
	schema, _ := t.Compiled()
	plan := casegen.Generate(t.Name, schema, casegen.Options{Seed: lc.r.cfg.Seed, Budget: 1})
	var m map[string]any
	if plan.GeneratorGap != "" || len(plan.Cases) == 0 || decodeArgs(plan.Cases[0].Arguments, &m) != nil || m == nil {
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: no valid arguments for %s (give an example in .mcp-fuzz.yml)", t.Name))
	}
	return m, nil
}

func decodeArgs(raw json.RawMessage, m *map[string]any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(m)
}

func cloneArgs(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = decodeArgs(raw, &out)
	if out == nil {
		out = maps.Clone(m)
	}
	return out
}

// idValue is id as a value of the argument a: in a list for a list
// argument, a number for a numeric one when it reads as one, else a
// string.
func idValue(id any, a idArg) any {
	var v any
	switch n := id.(type) {
	case json.Number:
		v = n
		if !a.number {
			v = n.String()
		}
	case string:
		v = n
		if a.number {
			if _, err := json.Number(n).Float64(); err == nil {
				v = json.Number(n)
			}
		}
	default:
		v = fmt.Sprint(id)
	}
	if a.array {
		return []any{v}
	}
	return v
}

// answerOf is what a call's detail says came back, without the advice a
// valid call's detail gives about synthetic input (a lifecycle check's
// arguments hold an id the server gave).
func answerOf(rc report.Case) string {
	d, _, _ := strings.Cut(rc.Detail, " (may be a synthetic-input false positive")
	return d
}

// idText is id as a detail shows it: "id \"note-1\"".
func idText(id any) string {
	return fmt.Sprintf("id %q", excerpt(fmt.Sprint(id), 64))
}

// maxLifecycleIDLen bounds the id a create tool's answer gives: a longer
// one skips the check.
const maxLifecycleIDLen = 512

// mentions reports whether the answer text names id as a whole: not
// inside a longer name or number (the id "a" is not in "entities", nor
// "note-1" in "note-12").
func mentions(text string, id any) bool {
	s := fmt.Sprint(id)
	if s == "" {
		return false
	}
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], s)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(s):])
		if !idRune(before) && !idRune(after) {
			return true
		}
		from = i + 1
	}
	return false
}

// idRune reports whether r can be part of an id: a letter, a digit, _ or -.
func idRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// freshNames is args with each name-like string (name, title, NOUN_name,
// NOUN_title, at any depth: create_entities' entities[].name) made new for
// this create, so that a server that keeps names unique makes a resource
// (the audit's valid call may have made one of that name already). It is
// nil when args have no such string or the new ones break the schema.
func (lc *lifecycle) freshNames(g *lcGroup, args map[string]any) map[string]any {
	n := normKey(g.noun)
	lc.made++
	suffix := fmt.Sprintf("-lc%d", lc.made)
	changed := false
	var walk func(v any, depth int) any
	walk = func(v any, depth int) any {
		if depth > 8 {
			return v
		}
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				s, isStr := e.(string)
				switch key := normKey(k); {
				case isStr && s != "" && (key == "name" || key == "title" || key == n+"name" || key == n+"title"):
					out[k], changed = s+suffix, true
				default:
					out[k] = walk(e, depth+1)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e, depth+1)
			}
			return out
		}
		return v
	}
	fresh, _ := walk(args, 0).(map[string]any)
	if !changed {
		return nil
	}
	raw, err := json.Marshal(fresh)
	if schema, _ := g.create.Compiled(); err != nil || schema.Validate(raw) != nil {
		return nil
	}
	return fresh
}

var uuidPattern = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// findID finds the id of what a create tool made in its answer (text, the
// text of its content blocks, and structured, its structuredContent): a
// JSON field named NOUN_id (NounId), id, NOUN_name or name, the
// shallowest first; else a UUID in the text; else a name-like argument
// (name, title, NOUN_name) that the answer echoes. how says which.
func findID(text string, structured json.RawMessage, noun string, args map[string]any) (id any, how string) {
	for _, doc := range []struct {
		raw  string
		what string
	}{{string(structured), "structuredContent"}, {strings.TrimSpace(text), "the JSON text"}} {
		if doc.raw == "" {
			continue
		}
		var v any
		d := json.NewDecoder(strings.NewReader(doc.raw))
		d.UseNumber()
		if d.Decode(&v) != nil {
			continue
		}
		if id, field := idField(v, noun); id != nil {
			return id, "field " + field + " of " + doc.what
		}
	}
	if u := uuidPattern.FindString(text); u != "" {
		return u, "a UUID in the answer"
	}
	n := normKey(noun)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		switch normKey(k) {
		case "name", "title", n + "name", n + "title":
			if s, ok := args[k].(string); ok && s != "" && strings.Contains(text, s) {
				return s, "the " + k + " argument, echoed"
			}
		}
	}
	return nil, ""
}

// idField searches v breadth first for an id-like field; the first
// element stands for an array.
func idField(v any, noun string) (any, string) {
	n := normKey(noun)
	level := []any{v}
	for depth := 0; depth < 6 && len(level) > 0; depth++ {
		var next []any
		for _, want := range []string{n + "id", "id", n + "name", "name"} {
			for _, x := range level {
				obj, ok := x.(map[string]any)
				if !ok {
					continue
				}
				for _, k := range slices.Sorted(maps.Keys(obj)) {
					if normKey(k) != want {
						continue
					}
					switch val := obj[k].(type) {
					case string:
						if val != "" {
							return val, k
						}
					case json.Number:
						return val, k
					}
				}
			}
		}
		for _, x := range level {
			switch x := x.(type) {
			case map[string]any:
				for _, k := range slices.Sorted(maps.Keys(x)) {
					next = append(next, x[k])
				}
			case []any:
				if len(x) > 0 {
					next = append(next, x[0])
				}
			}
		}
		level = next
	}
	return nil, ""
}

// lifecycleFinding is the finding of a failed lifecycle check: id
// "lifecycle/NOUN#code" (no tool's case caused it), its message the steps
// that led to it, its reproducer the check's calls in order.
func lifecycleFinding(rep *report.Report, cfg Config, c report.Check, code report.Code) report.Finding {
	return report.Finding{
		ID:         c.ID + "#" + c.Code,
		Severity:   code.Severity,
		Code:       c.Code,
		Message:    repro.CheckMessage(c, code, ": "+c.Detail),
		Reproducer: reproduceLifecycle(rep, cfg, c),
	}
}

// reproduceLifecycle sends a lifecycle check's calls in order to the
// server command (after initialize in the legacy era). The ids in them are
// the ones the server returned during the run: a server that numbers its
// resources the same way after a fresh start gives them again.
func reproduceLifecycle(rep *report.Report, cfg Config, c report.Check) report.Reproducer {
	var r report.Reproducer
	if len(c.Request) > 0 {
		r.JSONRPC = string(escape.JSON(c.Request))
	}
	if len(cfg.Command) == 0 || len(c.Calls) == 0 {
		return r
	}
	var lines []string
	if rep.Server.Era != EraModern {
		lines = append(lines, repro.Initialize, repro.Initialized)
	}
	for _, call := range c.Calls {
		lines = append(lines, string(escape.JSON(call)))
	}
	quoted := make([]string, len(lines))
	for i, l := range lines {
		quoted[i] = repro.ShellQuote(l)
	}
	cd, prefix := repro.ShellContext(reproTarget(cfg))
	r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s; sleep 2; } | %s%s", cd, strings.Join(quoted, " "), prefix, repro.ShellJoin(cfg.Command))
	return r
}
