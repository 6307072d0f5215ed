package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Bounds of learning a valid call (docs/BEHAVIOUR.md#case-generation): what mcp-fuzz reads of what
// a server says, and how often it asks again.
const (
	// maxLearnRetries bounds the calls of the tool itself with learned
	// arguments, per tool.
	maxLearnRetries = 3
	// maxLearnText is how much of one message or result is searched for
	// values; the rest of a huge or hostile answer is ignored.
	maxLearnText = 8 << 10
	// maxLearnValues bounds the values taken from one source.
	maxLearnValues = 32
	// maxLearnValue is the longest value tried.
	maxLearnValue = 512
	// maxListedDirs bounds the learned directories listed to find a file.
	maxListedDirs = 2
	// maxListingTools bounds the read-only listing tools called to learn.
	maxListingTools = 4
)

// Where learned values come from, as the report's learnedFrom says it.
const (
	fromErrorMessage = "error message"
	fromResources    = "resources/list"
	fromSchema       = "schema " // + the keyword: "schema examples"
	fromTool         = "tool "   // + the tool's name
)

// learnCandidate is one value to try in one property.
type learnCandidate struct {
	value string
	from  string
	// file and dir say what the value looks like: a listed file, or a
	// directory (listed as one, or a root a listing tool named).
	file, dir bool
}

// learning is what a runner keeps between tools to learn valid calls: the
// tools of the server (to find read-only listings), the answers of the
// discovery calls it made (each is made once per session's runner), and the
// values in the answers of read-only tools it already called.
type learning struct {
	tools     []tool
	resources bool // the server has the resources capability
	listed    map[string][]learnCandidate
	// seen holds values from the valid calls of read-only tools run so far
	// on this runner, in order; kept only when tools run one at a time, so
	// that what is learned does not depend on scheduling.
	seen []learnCandidate
	// calls holds the judged discovery calls of listing tools that must be
	// reported, shared by the runners of a run.
	calls *discoveryCalls
}

// newLearning is the learning state of one runner over tools, on a server
// whose initialize answer declared capabilities; calls is shared by the
// runners of one run.
func newLearning(tools []tool, capabilities json.RawMessage, calls *discoveryCalls) *learning {
	return &learning{tools: tools, resources: declares(capabilities, "resources"), listed: map[string][]learnCandidate{}, calls: calls}
}

// discoveryCalls keeps, over the runners of one run, the discovery calls
// of listing tools that learning made and that must not be hidden: those
// that crashed, hung or broke the protocol, and those whose answer carries
// a flag (a leak, a panic on stderr). Each is reported as an extra case of
// the listing tool (see [discoveryCalls.cases]), so that it is a finding
// with a reproducer like any other case. A listing tool whose discovery
// call got no answer is not called again to learn for the rest of the run.
type discoveryCalls struct {
	mu     sync.Mutex
	byTool map[string][]report.Case
	// failed maps a listing tool to the id of its discovery case that got
	// no answer.
	failed map[string]string
}

func newDiscoveryCalls() *discoveryCalls {
	return &discoveryCalls{byTool: map[string][]report.Case{}, failed: map[string]string{}}
}

// discoveryCaseID is the id of the n-th reported discovery call of tool.
func discoveryCaseID(tool string, n int) string {
	return fmt.Sprintf("%s/%s/discovery-%d", tool, report.KindValid, n)
}

// add records rc, a judged discovery call of tool, under the next free id,
// which it returns; failed says the call got no answer.
func (d *discoveryCalls) add(tool string, rc report.Case, failed bool) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	rc.ID = discoveryCaseID(tool, len(d.byTool[tool])+1)
	d.byTool[tool] = append(d.byTool[tool], rc)
	if failed && d.failed[tool] == "" {
		d.failed[tool] = rc.ID
	}
	return rc.ID
}

// failedCall is the id of tool's discovery case that got no answer, or "".
func (d *discoveryCalls) failedCall(tool string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failed[tool]
}

// cases are the recorded discovery calls of tool, in the order they ran.
func (d *discoveryCalls) cases(tool string) []report.Case {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.byTool[tool])
}

// retrySafe reports whether a tool may be called again with learned
// arguments: annotated read-only, or explicitly not destructive.
func (t tool) retrySafe() bool {
	if t.Destructive != nil && *t.Destructive {
		return false
	}
	return (t.ReadOnly != nil && *t.ReadOnly) || (t.Destructive != nil && !*t.Destructive)
}

// discoverySafe reports whether a tool may be called only to learn from
// its answer: annotated read-only and not destructive.
func (t tool) discoverySafe() bool {
	return t.ReadOnly != nil && *t.ReadOnly && (t.Destructive == nil || !*t.Destructive)
}

// shallowSchema is the top level of an input schema, as learning reads it.
type shallowSchema struct {
	Properties map[string]shallowProp `json:"properties"`
	Required   []string               `json:"required"`
}

type shallowProp struct {
	Type     json.RawMessage `json:"type"`
	Examples []any           `json:"examples"`
	Enum     []any           `json:"enum"`
	Default  any             `json:"default"`
}

func (p shallowProp) isString() bool {
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return one == "string"
	}
	var many []string
	return json.Unmarshal(p.Type, &many) == nil && slices.Contains(many, "string")
}

func (t tool) shallow() shallowSchema {
	var s shallowSchema
	_ = json.Unmarshal(t.InputSchema, &s)
	return s
}

// isListing reports whether t looks like a read-only listing that takes no
// required argument, e.g. list_allowed_directories.
func (t tool) isListing() bool {
	// The name first: it is cheap, and the schema is decoded only for the
	// few tools named like a listing (this runs over every tool for each
	// errored valid call).
	return strings.Contains(strings.ToLower(t.Name), "list") && t.discoverySafe() && len(t.shallow().Required) == 0
}

// dirLister returns the one required string property of a read-only
// listing tool that takes a path (e.g. list_directory's path), or "".
func (t tool) dirLister() string {
	if !strings.Contains(strings.ToLower(t.Name), "list") || !t.discoverySafe() {
		return ""
	}
	s := t.shallow()
	if len(s.Required) != 1 {
		return ""
	}
	p, ok := s.Properties[s.Required[0]]
	if !ok || !p.isString() || !pathLike(s.Required[0]) {
		return ""
	}
	return s.Required[0]
}

// fillable names the words that mark a string property a learned value may
// fill.
var fillable = []string{"path", "file", "dir", "folder", "uri", "url", "id", "name", "key", "root", "resource"}

func pathLike(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"path", "file", "dir", "folder", "root"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// fillTargets are the string properties of t's schema a learned value may
// fill: required ones first, each group by name.
func fillTargets(s shallowSchema) []string {
	var req, opt []string
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !s.Properties[n].isString() {
			continue
		}
		ln := strings.ToLower(n)
		if !slices.ContainsFunc(fillable, func(w string) bool { return strings.Contains(ln, w) }) {
			continue
		}
		if slices.Contains(s.Required, n) {
			req = append(req, n)
		} else {
			opt = append(opt, n)
		}
	}
	return append(req, opt...)
}

// want says what kind of value a tool seems to take: +1 a file, -1 a
// directory, 0 unknown. errText is the tool's own error message.
func want(t tool, errText string) int {
	e := strings.ToLower(errText)
	switch {
	case strings.Contains(e, "eisdir") || strings.Contains(e, "is a directory"):
		return 1
	case strings.Contains(e, "enotdir") || strings.Contains(e, "not a directory"):
		return -1
	}
	n := strings.ToLower(t.Name)
	for _, w := range []string{"dir", "folder", "tree", "search", "list"} {
		if strings.Contains(n, w) {
			return -1
		}
	}
	if strings.Contains(n, "file") || strings.Contains(n, "read") || strings.Contains(n, "media") {
		return 1
	}
	return 0
}

// learnedValid is the outcome of learning for one tool.
type learnedValid struct {
	args json.RawMessage // nil when nothing succeeded
	from string
	// rc is the judged retry that ended learning: the success, or a
	// failure (crash, hang, protocol violation) or a flagged answer (leak,
	// stderr_panic, …) that must not be hidden.
	rc    *report.Case
	tried []string // what was tried, for the detail
}

// learnValid tries to turn tool t's errored valid call (case c, judged as
// first) into a valid call that works, with values the server itself
// named: in its error message, its schema's other examples, resources/list,
// read-only listing tools and the answers of read-only tools already called.
// It calls t again at most [maxLearnRetries] times, and only answered calls
// count: a retry that fails as a crash, a hang or a protocol violation, or
// whose answer has a flag the first attempt did not (a leak, a panic on
// stderr), ends learning and is returned to be reported as the valid call.
// first is the judged first attempt; the text of its answer is r.lastText.
func (r *runner) learnValid(ctx context.Context, t tool, c casegen.Case, first *report.Case, validateOutput func(json.RawMessage) error) learnedValid {
	errText := r.lastText
	var out learnedValid
	schema, _ := t.compiled()
	s := t.shallow()
	targets := fillTargets(s)
	if len(targets) == 0 || !schema.Compiled() {
		// No property a learned value could fill, or no validator to
		// check a learned call against the schema: nothing to ask.
		return out
	}
	var base map[string]any
	d := json.NewDecoder(bytes.NewReader(c.Arguments))
	d.UseNumber()
	if d.Decode(&base) != nil || base == nil {
		return out
	}

	var cands []learnCandidate
	// What the server's error names comes first: it says what it expects.
	for _, v := range extractValues(errText) {
		if !echoesSent(base, v.value) {
			v.from = fromErrorMessage
			cands = append(cands, v)
		}
	}
	cands = append(cands, schemaAlternatives(s, base)...)
	discovered, stop := r.discover(ctx, t)
	if stop != "" {
		out.tried = append(out.tried, stop)
		return out
	}
	cands = append(cands, discovered...)
	kind := want(t, errText)
	if kind > 0 && !slices.ContainsFunc(cands, func(c learnCandidate) bool { return c.file }) {
		files, stop := r.listFiles(ctx, t, cands)
		if stop != "" {
			out.tried = append(out.tried, stop)
			return out
		}
		cands = append(cands, files...)
	}
	// Values that look like what the tool takes first, then the others,
	// each group in the order found: the error message, the schema, then
	// discovery.
	order := func(c learnCandidate) int { return 3*fit(targets[0], c.value) + rank(c, kind) }
	sort.SliceStable(cands, func(i, j int) bool { return order(cands[i]) < order(cands[j]) })

	type attempt struct {
		args json.RawMessage
		from string
	}
	var attempts []attempt
	seen := map[string]bool{string(c.Arguments): true}
	for _, cd := range cands {
		if !r.usableValue(cd.value) {
			continue
		}
		args := fillCandidate(base, targets, s, cd)
		if args == nil || seen[string(args)] {
			continue
		}
		seen[string(args)] = true
		if schema.Validate(args) != nil {
			continue
		}
		attempts = append(attempts, attempt{args, cd.from})
		if len(attempts) == maxLearnRetries {
			break
		}
	}
	if len(attempts) == 0 {
		out.tried = append(out.tried, "no value to learn from the error message, the schema, resources or read-only listing tools")
		return out
	}
	for _, a := range attempts {
		if !r.ensureSession(ctx) || ctx.Err() != nil {
			return out
		}
		lc := c
		lc.Arguments = a.args
		rc := reportCase(lc)
		r.timedOut = false
		r.runCase(ctx, t, lc, &rc, false, validateOutput)
		switch {
		case rc.Verdict.Confirms():
			out.args, out.from, out.rc = a.args, a.from, &rc
			return out
		case rc.Verdict.Failure() || rc.Verdict == report.NotRun || r.timedOut ||
			slices.ContainsFunc(rc.Flags, func(f string) bool { return !slices.Contains(first.Flags, f) }):
			// Not answered, the server broke, or the answer leaked or
			// panicked where the first attempt did not: this is the
			// verdict, not hidden.
			rc.LearnedFrom = a.from
			out.from, out.rc = a.from, &rc
			return out
		}
		detail, _, _ := strings.Cut(rc.Detail, syntheticHint)
		out.tried = append(out.tried, fmt.Sprintf("%s from %s: %s", a.args, a.from, excerpt(detail, 80)))
	}
	return out
}

// echoesSent reports whether v is one of the string arguments sent, or ends
// with one: an error that quotes the path the tool resolved from our own
// value (".../README.md" for "README.md") names nothing new.
func echoesSent(base map[string]any, v string) bool {
	for _, a := range base {
		if s, ok := a.(string); ok && (s == v || (len(s) >= 3 && strings.HasSuffix(v, s))) {
			return true
		}
	}
	return false
}

// fit says how well value suits a property named prop: 0 well (a URI for
// a uri, an absolute path for a path, a plain token for an id or a name),
// 1 maybe, 2 badly.
func fit(prop, value string) int {
	p := strings.ToLower(prop)
	uri := strings.Contains(value, "://")
	switch {
	case strings.Contains(p, "uri") || strings.Contains(p, "url"):
		if uri {
			return 0
		}
		return 2
	case pathLike(p):
		if strings.HasPrefix(value, "/") {
			return 0
		}
		return 1
	}
	if uri || strings.ContainsAny(value, "/ \t") {
		return 1
	}
	return 0
}

// rank orders discovered values for a tool that wants kind (+1 files, -1
// directories, 0 either).
func rank(c learnCandidate, kind int) int {
	switch {
	case kind > 0 && c.file, kind < 0 && c.dir:
		return 0
	case kind != 0 && !c.file && !c.dir:
		return 1
	case kind == 0:
		return 0
	}
	return 2
}

// usableValue reports whether a learned value may be sent and reported: a
// bounded line of printable text that carries no secret (the session already
// replaced the run's secrets by ***; secret-shaped strings, long random ones
// included, are dropped too: the report would show them as ***)
// nor a transformed form of one (a piece of 8 characters in any case, its
// base64, its reversal: see [leak.Detector.Resembles]).
func (r *runner) usableValue(v string) bool {
	if v == "" || len(v) > maxLearnValue || strings.Contains(v, "***") || r.leak.Redact(v) != v || r.leak.Resembles(v) {
		return false
	}
	return !strings.ContainsFunc(v, func(c rune) bool { return !unicode.IsPrint(c) })
}

// fillCandidate puts cd's value in the first target property whose current
// value it does not merely repeat, and returns the arguments encoded; nil
// when no property fits.
func fillCandidate(base map[string]any, targets []string, s shallowSchema, cd learnCandidate) json.RawMessage {
	for _, name := range targets {
		cur, _ := base[name].(string)
		if cur == cd.value {
			continue
		}
		if strings.HasPrefix(cd.from, fromSchema) && !slices.ContainsFunc(s.Properties[name].Examples, func(e any) bool { return e == cd.value }) &&
			!slices.ContainsFunc(s.Properties[name].Enum, func(e any) bool { return e == cd.value }) && s.Properties[name].Default != cd.value {
			continue // a schema's value belongs to its own property
		}
		args := make(map[string]any, len(base))
		for k, v := range base {
			args[k] = v
		}
		args[name] = cd.value
		b, err := json.Marshal(args)
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}

// schemaAlternatives are the string values a top-level property's schema
// names that the generator did not use: its other examples, enum values and
// default.
func schemaAlternatives(s shallowSchema, base map[string]any) []learnCandidate {
	var out []learnCandidate
	for _, name := range fillTargets(s) {
		p := s.Properties[name]
		add := func(v any, kw string) {
			if str, ok := v.(string); ok && base[name] != str && len(out) < maxLearnValues {
				out = append(out, learnCandidate{value: str, from: fromSchema + kw})
			}
		}
		for _, v := range p.Examples {
			add(v, "examples")
		}
		add(p.Default, "default")
		for _, v := range p.Enum {
			add(v, "enum")
		}
	}
	return out
}

// discover gathers the values the server names without being asked about
// t: resources/list URIs, the answers of read-only listing tools, and what
// read-only tools already answered. stop is set when a discovery call got
// no answer: learning ends there, and says so.
func (r *runner) discover(ctx context.Context, t tool) (cands []learnCandidate, stop string) {
	l := r.learn
	if l == nil {
		return nil, ""
	}
	if l.resources {
		got, stop := r.listedOnce(ctx, fromResources, r.cfg.Timeout, func(ctx context.Context) (string, error) {
			raw, _, err := r.s.call(ctx, "resources/list", map[string]any{})
			if err != nil {
				return "", err
			}
			var res struct {
				Resources []struct {
					URI string `json:"uri"`
				} `json:"resources"`
			}
			_ = json.Unmarshal(raw, &res)
			var b strings.Builder
			for i, x := range res.Resources {
				if i == maxLearnValues {
					break
				}
				b.WriteString(x.URI + "\n")
			}
			return b.String(), nil
		})
		if stop != "" {
			return nil, stop
		}
		cands = append(cands, got...)
	}
	listings := 0
	for _, lt := range l.tools {
		if lt.Name == t.Name || !lt.isListing() || r.cfg.skipReason(lt) != "" || lt.TaskSupport == "required" {
			continue
		}
		if listings++; listings > maxListingTools {
			break
		}
		got, stop := r.listingCall(ctx, t, lt, json.RawMessage(`{}`), fromTool+lt.Name, nil)
		if stop != "" {
			return nil, stop
		}
		if n := strings.ToLower(lt.Name); strings.Contains(n, "dir") || strings.Contains(n, "root") || strings.Contains(n, "folder") {
			for i := range got {
				got[i].dir, got[i].file = true, false // a listing of directories
			}
		}
		cands = append(cands, got...)
	}
	return append(cands, l.seen...), ""
}

// listFiles lists up to [maxListedDirs] learned directories with a
// read-only listing tool that takes a path, for a tool that needs a file.
func (r *runner) listFiles(ctx context.Context, t tool, found []learnCandidate) (files []learnCandidate, stop string) {
	if r.learn == nil {
		return nil, ""
	}
	var dirs []string
	for _, c := range found {
		if (c.dir || !c.file) && strings.HasPrefix(c.value, "/") && !slices.Contains(dirs, c.value) && len(dirs) < maxListedDirs {
			dirs = append(dirs, c.value)
		}
	}
	for _, lt := range r.learn.tools {
		prop := lt.dirLister()
		if lt.Name == t.Name || prop == "" || r.cfg.skipReason(lt) != "" || lt.TaskSupport == "required" {
			continue
		}
		schema, _ := lt.compiled()
		for _, dir := range dirs {
			if !r.usableValue(dir) {
				continue
			}
			args, _ := json.Marshal(map[string]string{prop: dir})
			if schema.Compiled() && schema.Validate(args) != nil {
				continue
			}
			got, stop := r.listingCall(ctx, t, lt, args, fromTool+lt.Name+" "+dir, func(text string) string {
				return strings.Join(dirEntries(dir, text), "\n")
			})
			if stop != "" {
				return nil, stop
			}
			for _, g := range got {
				files = append(files, learnCandidate{value: g.value, from: fromTool + lt.Name, file: g.file, dir: g.dir})
			}
		}
		break // one listing tool is enough
	}
	return files, ""
}

// dirEntries reads a directory listing in the "[FILE] a.txt" / "[DIR] sub"
// style, files first, as paths under dir marked "file:" or "dir:".
func dirEntries(dir, text string) []string {
	var files, dirs []string
	for i, line := range strings.Split(cutUTF8(text, maxLearnText), "\n") {
		if i > 4*maxLearnValues {
			break
		}
		line = strings.TrimSpace(line)
		for _, p := range []struct{ tag, kind string }{{"[FILE]", "file:"}, {"[DIR]", "dir:"}} {
			name, ok := strings.CutPrefix(line, p.tag)
			name = strings.TrimSpace(name)
			if !ok || name == "" || strings.Contains(name, "/") || name == "." || name == ".." {
				continue
			}
			e := p.kind + path.Join(dir, name)
			if p.kind == "file:" {
				files = append(files, e)
			} else {
				dirs = append(dirs, e)
			}
		}
	}
	return append(files, dirs...)
}

// listedOnce makes a discovery call that is not a tool call (resources/list)
// once per runner (its values are kept under key) and extracts the values of
// its text. A call that gets no answer, or whose session breaks, stops
// learning: stop says why; it is not made again on this runner.
func (r *runner) listedOnce(ctx context.Context, key string, timeout time.Duration, call func(context.Context) (string, error)) ([]learnCandidate, string) {
	if got, ok := r.learn.listed[key]; ok {
		return slices.Clone(got), ""
	}
	if !r.ensureSession(ctx) {
		return nil, "learning stopped: no session"
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	text, err := call(cctx)
	cancel()
	var rpcErr *rpc.Error
	var over *rpc.Oversize
	switch {
	case err == nil, errors.As(err, &rpcErr), errors.Is(err, errIsError):
	case errors.As(err, &over):
		r.closeSession() // the stream may be mid-answer
		return nil, fmt.Sprintf("learning stopped: %s answered with %d bytes, over --max-response", key, over.Bytes)
	case ctx.Err() != nil:
		return nil, "learning stopped: run cancelled"
	default:
		s := r.s
		// Not asked again on this runner: a call that got no answer
		// would cost its timeout again for every later tool.
		r.learn.listed[key] = nil
		if errors.Is(err, context.DeadlineExceeded) && s != nil && r.alive(ctx, s) {
			return nil, ""
		}
		r.closeSession()
		return nil, fmt.Sprintf("learning stopped: %s got no answer (%s)", key, excerpt(r.leak.Redact(err.Error()), 80))
	}
	var got []learnCandidate
	for _, v := range extractValues(text) {
		v.from = key
		got = append(got, v)
	}
	r.learn.listed[key] = got
	return slices.Clone(got), ""
}

// errIsError is the error of a discovery call answered with isError.
var errIsError = errors.New("isError")

// listingCall calls the read-only listing tool lt with args to learn
// values for tool t, once per runner (its values are kept under key), and
// extracts the values of its answer's text, as read by read when not nil.
//
// The call is sent and judged as a valid case of lt (see [runner.runCase]:
// the same verdict, flags, crash information and session handling as any
// case). A call that crashed, hung or broke the protocol, or whose answer
// carries a flag, is recorded in the run's [discoveryCalls] to be reported
// as a case of lt. A call that got no answer stops learning for t (stop
// names the case), and lt is not called again to learn for the rest of the
// run. Only an answer that confirms lt works is read for values; an error
// answer teaches nothing and is not an error of the learning.
func (r *runner) listingCall(ctx context.Context, t, lt tool, args json.RawMessage, key string, read func(string) string) ([]learnCandidate, string) {
	if got, ok := r.learn.listed[key]; ok {
		return slices.Clone(got), ""
	}
	calls := r.learn.calls
	if calls != nil && calls.failedCall(lt.Name) != "" {
		return nil, "" // it got no answer once: not asked again
	}
	if !r.ensureSession(ctx) {
		return nil, "learning stopped: no session"
	}
	c := casegen.Case{ID: discoveryCaseID(lt.Name, 0), Tool: lt.Name, Kind: casegen.Valid, Arguments: args}
	rc := reportCase(c)
	// A discovery call counts toward nothing of the tool being learned:
	// not its hangs, nor the text its learning reads.
	timedOut, lastText := r.timedOut, r.lastText
	r.timedOut = false
	r.runCase(ctx, lt, c, &rc, false, lt.outputValidator())
	hung, text := r.timedOut, r.lastText
	r.timedOut, r.lastText = timedOut, lastText
	if ctx.Err() != nil {
		return nil, "learning stopped: run cancelled"
	}
	failed := rc.Verdict.Failure() || hung || rc.Verdict == report.NotRun
	if failed || len(rc.Flags) > 0 {
		rc.Detail = joinDetail(fmt.Sprintf("a discovery call: mcp-fuzz called this read-only listing with %s to learn a valid call of tool %s", excerpt(string(args), 200), t.Name), rc.Detail)
		id := rc.ID
		if calls != nil {
			id = calls.add(lt.Name, rc, failed)
		}
		if failed {
			return nil, fmt.Sprintf("learning stopped: the discovery call %s (%s with %s) was %s", id, lt.Name, excerpt(string(args), 120), rc.Verdict)
		}
	}
	var got []learnCandidate
	if rc.Verdict.Confirms() {
		if read != nil {
			text = read(text)
		}
		for _, v := range extractValues(text) {
			v.from = fromTool + lt.Name
			got = append(got, v)
		}
	}
	r.learn.listed[key] = got
	return slices.Clone(got), ""
}

// remember keeps the values in the answer of a read-only tool's valid call,
// for the tools after it.
func (r *runner) remember(t tool, text string) {
	if r.learn == nil || r.cfg.Parallel > 1 || !t.discoverySafe() || text == "" {
		return
	}
	for _, v := range extractValues(text) {
		if len(r.learn.seen) >= 4*maxLearnValues {
			return
		}
		v.from = fromTool + t.Name
		r.learn.seen = append(r.learn.seen, v)
	}
}

var (
	learnURI     = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s'"\x60<>(),]+`)
	learnPath    = regexp.MustCompile(`(?:^|[\s'"\x60(:,=\[])(/[^\s'"\x60,;()<>\[\]]+)`)
	learnQuoted  = regexp.MustCompile("'([^'\\n]{1,200})'|\"([^\"\\n]{1,200})\"|`([^`\\n]{1,200})`")
	learnOneOf   = regexp.MustCompile(`(?i)(?:one of|allowed values|valid values(?: are)?)\s*:?\s*([^\n]{1,300})`)
	learnEntry   = regexp.MustCompile(`^(file|dir):(.+)$`)
	learnID      = regexp.MustCompile(`\b(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z]{1,12}[-_][0-9][A-Za-z0-9_-]{0,40})\b`)
	learnListSep = regexp.MustCompile(`\s*(?:,|\|| or )\s*`)
)

// extractValues finds the values a server's text names: URIs, absolute
// paths, quoted strings, and the items of "one of: a, b" lists, at most
// [maxLearnValues], in the order they appear, without repeats.
func extractValues(text string) []learnCandidate {
	text = cutUTF8(text, maxLearnText)
	var out []learnCandidate
	seen := map[string]bool{}
	add := func(v string, file, dir bool) {
		v = strings.TrimRight(strings.TrimSpace(v), ".:;")
		if v == "" || seen[v] || len(out) >= maxLearnValues || len(v) > maxLearnValue {
			return
		}
		seen[v] = true
		out = append(out, learnCandidate{value: v, file: file, dir: dir})
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		var doc any
		if json.Unmarshal([]byte(t), &doc) == nil {
			// A JSON answer: the strings under id-, path-, uri- or
			// name-like keys, not every key and word of it.
			jsonValues(doc, "", 0, func(v string) { add(v, hasExt(v), strings.HasSuffix(v, "/")) })
			return out
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 8*maxLearnValues {
			break
		}
		if m := learnEntry.FindStringSubmatch(line); m != nil {
			add(m[2], m[1] == "file", m[1] == "dir")
			continue
		}
		for _, m := range learnURI.FindAllString(line, maxLearnValues) {
			add(m, false, false)
		}
		for _, m := range learnPath.FindAllStringSubmatch(line, maxLearnValues) {
			if !strings.HasPrefix(m[1], "//") {
				add(m[1], hasExt(m[1]), strings.HasSuffix(m[1], "/"))
			}
		}
		for _, m := range learnQuoted.FindAllStringSubmatch(line, maxLearnValues) {
			add(m[1]+m[2]+m[3], false, false)
		}
		for _, m := range learnID.FindAllString(line, maxLearnValues) {
			add(m, false, false)
		}
		if m := learnOneOf.FindStringSubmatch(line); m != nil {
			for _, item := range learnListSep.Split(m[1], maxLearnValues) {
				item = strings.Trim(strings.TrimSpace(item), `'"`+"`[]().")
				if item != "" && !strings.ContainsAny(item, " \t") {
					add(item, false, false)
				}
			}
		}
	}
	return out
}

// jsonValues calls add with each string of doc held under a key a learned
// value may fill (see [fillable]), in document order (object keys sorted),
// down to a bounded depth.
func jsonValues(doc any, key string, depth int, add func(string)) {
	if depth > 8 {
		return
	}
	switch v := doc.(type) {
	case string:
		k := strings.ToLower(key)
		if slices.ContainsFunc(fillable, func(w string) bool { return strings.Contains(k, w) }) {
			add(v)
		}
	case []any:
		for i, e := range v {
			if i == maxLearnValues {
				break
			}
			jsonValues(e, key, depth+1, add)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			jsonValues(v[k], k, depth+1, add)
		}
	}
}

// hasExt reports whether the last element of p has a file extension.
func hasExt(p string) bool {
	ext := path.Ext(p)
	return len(ext) > 1 && len(ext) <= 6
}

// learnInto runs [runner.learnValid] for tool t, whose valid case c was
// judged errored in rc, and records the outcome in rc. When a learned call
// succeeds, it returns the plan generated from the learned arguments as the
// example, so that the bad-input cases derive from them (ok true).
func (r *runner) learnInto(ctx context.Context, t tool, c casegen.Case, rc *report.Case, validateOutput func(json.RawMessage) error) (casegen.Plan, bool) {
	firstDetail := rc.Detail
	got := r.learnValid(ctx, t, c, rc, validateOutput)
	if got.rc == nil {
		if len(got.tried) > 0 {
			rc.Detail = joinDetail(rc.Detail, "learning a valid call: "+excerpt(strings.Join(got.tried, "; "), 400))
		}
		return casegen.Plan{}, false
	}
	*rc = *got.rc
	rc.LearnedFrom = got.from
	rc.Detail = joinDetail(fmt.Sprintf("synthetic arguments errored: %s; learned from %s", excerpt(strings.Replace(firstDetail, syntheticHint, "", 1), 160), got.from), rc.Detail)
	if got.args == nil {
		return casegen.Plan{}, false // the learned call failed: judged as it is
	}
	var example map[string]any
	d := json.NewDecoder(bytes.NewReader(got.args))
	d.UseNumber()
	if d.Decode(&example) != nil {
		return casegen.Plan{}, false
	}
	schema, _ := t.compiled()
	return casegen.Generate(t.Name, schema, casegen.Options{
		Seed:       r.cfg.Seed,
		Budget:     r.cfg.Cases,
		Example:    example,
		Aggressive: r.cfg.Profile == "aggressive",
	}), true
}
