package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/learn"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// learning is what a runner keeps between tools to learn valid calls: the
// tools of the server (to find read-only listings), the answers of the
// discovery calls it made (each is made once per session's runner), and the
// values in the answers of read-only tools it already called.
type learning struct {
	tools     []tool
	resources bool // the server has the resources capability
	listed    map[string][]learn.Candidate
	// seen holds values from the valid calls of read-only tools run so far
	// on this runner, in order; kept only when tools run one at a time, so
	// that what is learned does not depend on scheduling.
	seen []learn.Candidate
	// calls holds the judged discovery calls of listing tools that must be
	// reported, shared by the runners of a run.
	calls *discoveryCalls
}

// newLearning is the learning state of one runner over tools, on a server
// whose initialize answer declared capabilities; calls is shared by the
// runners of one run.
func newLearning(tools []tool, capabilities json.RawMessage, calls *discoveryCalls) *learning {
	return &learning{tools: tools, resources: declares(capabilities, "resources"), listed: map[string][]learn.Candidate{}, calls: calls}
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
// It calls t again at most [learn.MaxRetries] times, and only answered calls
// count: a retry that fails as a crash, a hang or a protocol violation, or
// whose answer has a flag the first attempt did not (a leak, a panic on
// stderr), ends learning and is returned to be reported as the valid call.
// first is the judged first attempt; the text of its answer is r.lastText.
func (r *runner) learnValid(ctx context.Context, t tool, c casegen.Case, first *report.Case, validateOutput func(json.RawMessage) error) learnedValid {
	errText := r.lastText
	var out learnedValid
	schema, _ := t.Compiled()
	s := t.Shallow()
	targets := learn.Targets(s)
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

	var cands []learn.Candidate
	// What the server's error names comes first: it says what it expects.
	for _, v := range learn.Extract(errText) {
		if !learn.EchoesSent(base, v.Value) {
			v.From = learn.FromErrorMessage
			cands = append(cands, v)
		}
	}
	cands = append(cands, learn.SchemaAlternatives(s, base)...)
	discovered, stop := r.discover(ctx, t)
	if stop != "" {
		out.tried = append(out.tried, stop)
		return out
	}
	cands = append(cands, discovered...)
	kind := learn.Want(t.Name, errText)
	if kind > 0 && !slices.ContainsFunc(cands, func(c learn.Candidate) bool { return c.File }) {
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
	order := func(c learn.Candidate) int { return 3*learn.Fit(targets[0], c.Value) + learn.Rank(c, kind) }
	sort.SliceStable(cands, func(i, j int) bool { return order(cands[i]) < order(cands[j]) })

	type attempt struct {
		args json.RawMessage
		from string
	}
	var attempts []attempt
	seen := map[string]bool{string(c.Arguments): true}
	for _, cd := range cands {
		if !r.usableValue(cd.Value) {
			continue
		}
		args := learn.Fill(base, targets, s, cd)
		if args == nil || seen[string(args)] {
			continue
		}
		seen[string(args)] = true
		if schema.Validate(args) != nil {
			continue
		}
		attempts = append(attempts, attempt{args, cd.From})
		if len(attempts) == learn.MaxRetries {
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
		detail, _, _ := strings.Cut(rc.Detail, oracle.SyntheticHint)
		out.tried = append(out.tried, fmt.Sprintf("%s from %s: %s", a.args, a.from, excerpt(detail, 80)))
	}
	return out
}

// usableValue reports whether a learned value may be sent and reported: a
// bounded line of printable text that carries no secret (the session already
// replaced the run's secrets by ***; secret-shaped strings, long random ones
// included, are dropped too: the report would show them as ***)
// nor a transformed form of one (a piece of 8 characters in any case, its
// base64, its reversal: see [leak.Detector.Resembles]).
func (r *runner) usableValue(v string) bool {
	if v == "" || len(v) > learn.MaxValue || strings.Contains(v, "***") || r.leak.Redact(v) != v || r.leak.Resembles(v) {
		return false
	}
	return !strings.ContainsFunc(v, func(c rune) bool { return !unicode.IsPrint(c) })
}

// discover gathers the values the server names without being asked about
// t: resources/list URIs, the answers of read-only listing tools, and what
// read-only tools already answered. stop is set when a discovery call got
// no answer: learning ends there, and says so.
func (r *runner) discover(ctx context.Context, t tool) (cands []learn.Candidate, stop string) {
	l := r.learn
	if l == nil {
		return nil, ""
	}
	if l.resources {
		got, stop := r.listedOnce(ctx, learn.FromResources, r.cfg.Timeout, func(ctx context.Context) (string, error) {
			raw, _, err := r.s.Call(ctx, "resources/list", map[string]any{})
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
				if i == learn.MaxValues {
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
		if lt.Name == t.Name || !lt.IsListing() || r.cfg.skipReason(lt) != "" || lt.TaskSupport == "required" {
			continue
		}
		if listings++; listings > learn.MaxListingTools {
			break
		}
		got, stop := r.listingCall(ctx, t, lt, json.RawMessage(`{}`), learn.FromTool+lt.Name, nil)
		if stop != "" {
			return nil, stop
		}
		if n := strings.ToLower(lt.Name); strings.Contains(n, "dir") || strings.Contains(n, "root") || strings.Contains(n, "folder") {
			for i := range got {
				got[i].Dir, got[i].File = true, false // a listing of directories
			}
		}
		cands = append(cands, got...)
	}
	return append(cands, l.seen...), ""
}

// listFiles lists up to [learn.MaxListedDirs] learned directories with a
// read-only listing tool that takes a path, for a tool that needs a file.
func (r *runner) listFiles(ctx context.Context, t tool, found []learn.Candidate) (files []learn.Candidate, stop string) {
	if r.learn == nil {
		return nil, ""
	}
	var dirs []string
	for _, c := range found {
		if (c.Dir || !c.File) && strings.HasPrefix(c.Value, "/") && !slices.Contains(dirs, c.Value) && len(dirs) < learn.MaxListedDirs {
			dirs = append(dirs, c.Value)
		}
	}
	for _, lt := range r.learn.tools {
		prop := lt.DirLister()
		if lt.Name == t.Name || prop == "" || r.cfg.skipReason(lt) != "" || lt.TaskSupport == "required" {
			continue
		}
		schema, _ := lt.Compiled()
		for _, dir := range dirs {
			if !r.usableValue(dir) {
				continue
			}
			args, _ := json.Marshal(map[string]string{prop: dir})
			if schema.Compiled() && schema.Validate(args) != nil {
				continue
			}
			got, stop := r.listingCall(ctx, t, lt, args, learn.FromTool+lt.Name+" "+dir, func(text string) string {
				return strings.Join(learn.DirEntries(dir, text), "\n")
			})
			if stop != "" {
				return nil, stop
			}
			for _, g := range got {
				files = append(files, learn.Candidate{Value: g.Value, From: learn.FromTool + lt.Name, File: g.File, Dir: g.Dir})
			}
		}
		break // one listing tool is enough
	}
	return files, ""
}

// listedOnce makes a discovery call that is not a tool call (resources/list)
// once per runner (its values are kept under key) and extracts the values of
// its text. A call that gets no answer, or whose session breaks, stops
// learning: stop says why; it is not made again on this runner.
func (r *runner) listedOnce(ctx context.Context, key string, timeout time.Duration, call func(context.Context) (string, error)) ([]learn.Candidate, string) {
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
	var got []learn.Candidate
	for _, v := range learn.Extract(text) {
		v.From = key
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
func (r *runner) listingCall(ctx context.Context, t, lt tool, args json.RawMessage, key string, read func(string) string) ([]learn.Candidate, string) {
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
	r.runCase(ctx, lt, c, &rc, false, lt.OutputValidator())
	hung, text := r.timedOut, r.lastText
	r.timedOut, r.lastText = timedOut, lastText
	if ctx.Err() != nil {
		return nil, "learning stopped: run cancelled"
	}
	failed := rc.Verdict.Failure() || hung || rc.Verdict == report.NotRun
	if failed || len(rc.Flags) > 0 {
		rc.Detail = oracle.JoinDetail(fmt.Sprintf("a discovery call: mcp-fuzz called this read-only listing with %s to learn a valid call of tool %s", excerpt(string(args), 200), t.Name), rc.Detail)
		id := rc.ID
		if calls != nil {
			id = calls.add(lt.Name, rc, failed)
		}
		if failed {
			return nil, fmt.Sprintf("learning stopped: the discovery call %s (%s with %s) was %s", id, lt.Name, excerpt(string(args), 120), rc.Verdict)
		}
	}
	var got []learn.Candidate
	if rc.Verdict.Confirms() {
		if read != nil {
			text = read(text)
		}
		for _, v := range learn.Extract(text) {
			v.From = learn.FromTool + lt.Name
			got = append(got, v)
		}
	}
	r.learn.listed[key] = got
	return slices.Clone(got), ""
}

// remember keeps the values in the answer of a read-only tool's valid call,
// for the tools after it.
func (r *runner) remember(t tool, text string) {
	if r.learn == nil || r.cfg.Parallel > 1 || !t.DiscoverySafe() || text == "" {
		return
	}
	for _, v := range learn.Extract(text) {
		if len(r.learn.seen) >= 4*learn.MaxValues {
			return
		}
		v.From = learn.FromTool + t.Name
		r.learn.seen = append(r.learn.seen, v)
	}
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
			rc.Detail = oracle.JoinDetail(rc.Detail, "learning a valid call: "+excerpt(strings.Join(got.tried, "; "), 400))
		}
		return casegen.Plan{}, false
	}
	*rc = *got.rc
	rc.LearnedFrom = got.from
	rc.Detail = oracle.JoinDetail(fmt.Sprintf("synthetic arguments errored: %s; learned from %s", excerpt(strings.Replace(firstDetail, oracle.SyntheticHint, "", 1), 160), got.from), rc.Detail)
	if got.args == nil {
		return casegen.Plan{}, false // the learned call failed: judged as it is
	}
	var example map[string]any
	d := json.NewDecoder(bytes.NewReader(got.args))
	d.UseNumber()
	if d.Decode(&example) != nil {
		return casegen.Plan{}, false
	}
	schema, _ := t.Compiled()
	return casegen.Generate(t.Name, schema, casegen.Options{
		Seed:       r.cfg.Seed,
		Budget:     r.cfg.Cases,
		Example:    example,
		Aggressive: r.cfg.Profile == "aggressive",
	}), true
}
