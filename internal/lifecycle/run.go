package lifecycle

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Caller is what the checks need of the audit: its live session, and how
// it redacts and reproduces a call. The engine implements it on the
// runner of the audit's first worker.
type Caller interface {
	// Call makes one tools/call of t with args on the audit's session,
	// reconnecting first when an earlier call broke it, and judges it as
	// a valid call. When no session can be had, the answer's case is
	// not_run with why.
	Call(ctx context.Context, t mcptool.Tool, args json.RawMessage) Answer
	// Live reports whether a session is open: cleaning up after a check
	// is not worth a reconnect.
	Live() bool
	// Redact is s without the secrets the audit knows of; a check's calls
	// and request go through it before they are kept.
	Redact(s string) string
	// Params are the params of a tools/call of tool with args as the
	// check's reproducer sends them (in the modern era, with its _meta
	// envelope).
	Params(tool string, args json.RawMessage) json.RawMessage
}

// Answer is one call's judgement and what came back.
type Answer struct {
	Case report.Case
	// Text is the text of the answer's content blocks, Structured its
	// structuredContent: set when the call succeeded or answered
	// isError.
	Text       string
	Structured json.RawMessage
	// TimedOut: the call got no complete answer within the timeout.
	TimedOut bool
}

// text is all the answer says: its text, then its structured content.
func (a Answer) text() string { return a.Text + string(a.Structured) }

// Options are what the checks take from the audit besides its session.
type Options struct {
	// Examples are the config's valid arguments by tool name.
	Examples map[string]map[string]any
	// Seed seeds the generated arguments of a tool with neither an
	// example nor a valid call that succeeded.
	Seed int64
	// Audited are the audit's tools: the first valid call of one, when it
	// succeeded, gives its arguments.
	Audited []report.Tool
	// MaxHangs is how many calls may get no complete answer within the
	// timeout before the remaining checks are skipped, and nothing more
	// is cleaned up: a server whose deletes all hang costs a few
	// timeouts, not a few per resource.
	MaxHangs int
}

// checker runs a plan: for each group, create, read, delete, read again;
// for a group whose create tool takes a parent's id, also create a parent
// and a child, delete the parent and read the child. A create or read
// that fails skips the check with why; a call that crashed, hung or broke
// the protocol fails it with the verdict's code.
type checker struct {
	c Caller
	o Options
	// calls are the tools/call lines of the check being run.
	calls []json.RawMessage
	// made counts the creates, for [freshNames].
	made int
	// hangs counts the calls that got no complete answer within the
	// timeout (see [Options.MaxHangs]).
	hangs int
}

// Run runs the checks of p on the session of c, after every tool ran,
// and returns them with p's skipped ones, by id.
func (p Plan) Run(ctx context.Context, c Caller, o Options) []report.Check {
	lc := &checker{c: c, o: o}
	out := slices.Clone(p.Skipped)
	for _, g := range p.Groups {
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
	return out
}

// hangsSpent is the skip detail of a check the lifecycle checks' hangs
// left no room for ("" while there is room).
func (lc *checker) hangsSpent() string {
	if lc.hangs < lc.o.MaxHangs {
		return ""
	}
	return fmt.Sprintf("not run: %d calls of the lifecycle checks before this one got no answer within the timeout", lc.hangs)
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
func ownCheck(g *Group) report.Check {
	return report.Check{
		ID: report.CheckGroupLifecycle + "/" + g.noun, Group: report.CheckGroupLifecycle,
		Title:    lifecycleTitle(g.noun),
		Expected: fmt.Sprintf("after %s succeeds, %s answers isError or a JSON-RPC error", g.delete.Name, g.read.Name),
	}
}

func orphanCheck(g *Group) report.Check {
	return report.Check{
		ID: report.CheckGroupLifecycle + "/" + g.parent.noun + "/" + g.noun, Group: report.CheckGroupLifecycle,
		Title:    fmt.Sprintf("%s is not readable once its %s is deleted (an observation)", withArticle(g.noun), g.parent.noun),
		Expected: fmt.Sprintf("after %s deletes the parent, %s answers isError or a JSON-RPC error", g.parent.delete.Name, g.read.Name),
	}
}

// skipped are g's checks, skipped with why.
func (lc *checker) skipped(g *Group, why string) []report.Check {
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
func (lc *checker) check(ctx context.Context, g *Group) []report.Check {
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
func (lc *checker) finish(k *lcCheck, err *stepError) report.Check {
	c := k.c
	if err != nil {
		c = err.c
	}
	for _, call := range lc.calls {
		c.Calls = append(c.Calls, json.RawMessage(lc.c.Redact(string(call))))
	}
	if c.Request != nil {
		c.Request = json.RawMessage(lc.c.Redact(string(c.Request)))
	}
	return c
}

// own creates a resource of g, reads it, deletes it and reads it again
// (creating a parent first, and deleting it after, when g has one).
func (lc *checker) own(ctx context.Context, g *Group, k *lcCheck) *stepError {
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

// goneRead is what the steps of [checker.readGone] say: the failed
// read's doing (for [checker.failed]), and the starts of the detail of
// an answer that still names the id, of one that answers without it, and
// of a refusal.
type goneRead struct {
	doing, still, silent, refused string
}

// readGone reads id with g's read tool once it (or its parent) is deleted,
// and ends k: a failed call fails it, an answer that still names id fails
// it with code and the request as reproducer, an answer without id or a
// refusal passes it.
func (lc *checker) readGone(ctx context.Context, g *Group, id any, k *lcCheck, code string, say goneRead) *stepError {
	rc, text := lc.readCall(ctx, g, id)
	switch {
	case rc.Verdict.Failure():
		return lc.failed(k, g.read, rc, say.doing)
	case rc.Verdict.Confirms() && mentions(text, id):
		k.c.Request = lc.calls[len(lc.calls)-1]
		return k.stop(report.CheckFail, code, say.still+": "+textcut.Excerpt(text, 160))
	case rc.Verdict.Confirms():
		k.note("%s without naming %s (%s)", say.silent, idText(id), textcut.Excerpt(text, 80))
	default:
		k.note("%s: %s", say.refused, cmp.Or(answerOf(rc), string(rc.Verdict)))
	}
	k.c.Status = report.CheckPass
	k.c.Detail = strings.Join(k.steps, "; ")
	return nil
}

// orphan creates a parent and a child of it, deletes the parent and reads
// the child: still readable is an observation (orphan_readable, info).
func (lc *checker) orphan(ctx context.Context, g *Group, k *lcCheck) *stepError {
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
func (lc *checker) create(ctx context.Context, g *Group, k *lcCheck) (any, *stepError) {
	args, err := lc.argsFor(g.create, k)
	if err != nil {
		return nil, err
	}
	return lc.createWith(ctx, g, args, k)
}

// createWith calls g's create tool with args and finds the new
// resource's id in its answer.
func (lc *checker) createWith(ctx context.Context, g *Group, args map[string]any, k *lcCheck) (any, *stepError) {
	lc.made++
	if fresh := freshNames(g, args, lc.made); fresh != nil {
		args = fresh
	}
	a := lc.call(ctx, g.create, args)
	rc, text := a.Case, a.text()
	if !rc.Verdict.Confirms() {
		return nil, lc.failed(k, g.create, rc, "creating a "+g.noun)
	}
	id, how := findID(text, a.Structured, g.noun, args)
	if id == nil {
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: no id of the new %s found in %s's answer (no JSON field id, %s_id or name, no UUID, no name of the arguments echoed): %s", g.noun, g.create.Name, g.noun, textcut.Excerpt(text, 120)))
	}
	if strings.Contains(fmt.Sprint(id), leak.Redacted) {
		// The answer was redacted before it reached the check: the id
		// carries a secret's value, and what is left of it names nothing
		// the server made. Sent back, its refusal would read as the
		// server's failure to find its own resource.
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: the id of the new %s in %s's answer (%s) carries the value of a secret, redacted, so it cannot be sent back", g.noun, g.create.Name, how))
	}
	if n := len(fmt.Sprint(id)); n > maxIDLen {
		// The server's id goes back to it in the read and the delete, and
		// into the reproducer: bounded like a taskId.
		return nil, k.stop(report.CheckSkip, "", fmt.Sprintf("not run: %s made an id of %d bytes (%s; over %d): %s", g.create.Name, n, how, maxIDLen, textcut.Excerpt(fmt.Sprint(id), 64)))
	}
	k.note("%s made %s (%s)", g.create.Name, idText(id), how)
	return id, nil
}

// readBack reads the resource just made: it must be there.
func (lc *checker) readBack(ctx context.Context, g *Group, id any, k *lcCheck) *stepError {
	rc, _ := lc.readCall(ctx, g, id)
	if !rc.Verdict.Confirms() {
		return lc.failed(k, g.read, rc, fmt.Sprintf("reading the %s just made (%s in %s)", g.noun, idText(id), g.readArg.name))
	}
	k.note("%s read it", g.read.Name)
	return nil
}

// remove deletes the resource of g named id.
func (lc *checker) remove(ctx context.Context, g *Group, id any, k *lcCheck) *stepError {
	args, err := lc.argsFor(g.delete, k)
	if err != nil {
		return err
	}
	args[g.deleteArg.name] = idValue(id, g.deleteArg)
	rc := lc.call(ctx, g.delete, args).Case
	if !rc.Verdict.Confirms() {
		return lc.failed(k, g.delete, rc, fmt.Sprintf("deleting the %s (%s)", g.noun, idText(id)))
	}
	k.note("%s deleted the %s", g.delete.Name, g.noun)
	return nil
}

// bestEffortDelete deletes what a check made and no longer needs; what
// comes back does not matter.
func (lc *checker) bestEffortDelete(ctx context.Context, g *Group, id any) {
	args, err := lc.argsFor(g.delete, &lcCheck{})
	if err != nil || ctx.Err() != nil || !lc.c.Live() || lc.hangsSpent() != "" {
		return
	}
	args[g.deleteArg.name] = idValue(id, g.deleteArg)
	lc.call(ctx, g.delete, args)
}

// readCall calls g's read tool for id.
func (lc *checker) readCall(ctx context.Context, g *Group, id any) (report.Case, string) {
	args, err := lc.argsFor(g.read, &lcCheck{})
	if err != nil {
		return report.Case{Verdict: report.GeneratorGap, Detail: err.Error()}, ""
	}
	args[g.readArg.name] = idValue(id, g.readArg)
	a := lc.call(ctx, g.read, args)
	return a.Case, a.text()
}

// failed stops k after a step whose call did not succeed: a crash, hang or
// protocol violation fails the check with the verdict's code; anything
// else (an error answer) skips it with why, since the arguments may be
// synthetic.
func (lc *checker) failed(k *lcCheck, t mcptool.Tool, rc report.Case, doing string) *stepError {
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

// call makes one tools/call of t with args through the caller, and keeps
// its line for the check's reproducer.
func (lc *checker) call(ctx context.Context, t mcptool.Tool, args map[string]any) Answer {
	raw, _ := json.Marshal(args)
	lc.calls = append(lc.calls, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, len(lc.calls)+2, lc.c.Params(t.Name, raw)))
	a := lc.c.Call(ctx, t, raw)
	if a.TimedOut {
		lc.hangs++
	}
	return a
}

// argsFor are the arguments t is called with before the id goes in: the
// config example, else the audit's valid call if it succeeded, else a
// generated valid call.
func (lc *checker) argsFor(t mcptool.Tool, k *lcCheck) (map[string]any, *stepError) {
	if ex, ok := lc.o.Examples[t.Name]; ok {
		return cloneArgs(ex), nil
	}
	for _, rt := range lc.o.Audited {
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
	plan := casegen.Generate(t.Name, schema, casegen.Options{Seed: lc.o.Seed, Budget: 1})
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

// answerOf is what a call's detail says came back, without the advice a
// valid call's detail gives about synthetic input (a lifecycle check's
// arguments hold an id the server gave).
func answerOf(rc report.Case) string {
	d, _, _ := strings.Cut(rc.Detail, " (may be a synthetic-input false positive")
	return d
}
