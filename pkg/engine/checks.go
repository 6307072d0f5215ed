package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Protocol checks (docs/BEHAVIOUR.md#checks-beyond-single-calls) test the server's protocol layer rather than
// a tool: each sends one request that a conforming server refuses in a
// given way, on a session of its own, after the tools were called (so that
// nothing a check does to the server changes a tool's verdicts).

// checkTimeout bounds one check's request: refusing a malformed request
// takes a protocol layer no tool work, so a server that needs longer is as
// good as hung.
const checkTimeout = 5 * time.Second

// checkBudget bounds the requests of the protocol checks together: a
// server that answers each just under the timeout, or must be restarted
// after each, costs this much, not a timeout (or a start) per check.
var checkBudget = 30 * time.Second

// maxCheckHangs is how many checks may hang before the rest are skipped: a
// server that hangs on malformed requests costs a few timeouts, not one
// per check.
const maxCheckHangs = 2

// protoRequest is the request of a protocol check.
type protoRequest struct {
	method string
	params json.RawMessage // as sent; nil for none
	// shown are the params as the report records them, when they may not
	// be the ones sent (nil: params).
	shown json.RawMessage
	// headers replace mcp-fuzz's own HTTP headers for this request (an
	// empty value removes one); over stdio there are none.
	headers http.Header
	// notify sends the request as a notification (no id).
	notify bool
}

// expectation is how a check judges the answer to its request.
type expectation struct {
	// codes are the refusals the spec names; nil accepts any JSON-RPC
	// error.
	codes []int64
	// supported: the refusal must carry data.supported (-32022).
	supported bool
	// legacy are refusal codes the revision superseded (a
	// legacy_error_code finding).
	legacy []int64
	// served is the finding code of a request served as if it were valid
	// (report.CodeEnvelopeIgnored by default).
	served string
	// servedOK says whether a result is a pass after all (a fresh
	// input_required for a tampered requestState); nil: never.
	servedOK func(raw json.RawMessage) bool
	// deviation: silence, a garbled answer or one of deviationCodes is a
	// protocol_deviation (warning), not a hang, protocol violation or
	// crash (see probes.go).
	deviation      bool
	deviationCodes []int64
	// silent: no answer at all is the pass (a notification).
	silent bool
	// refusal is the finding code of any JSON-RPC error when a result was
	// expected ("": an error passes).
	refusal string
}

// protoCheck is one check of a group.
type protoCheck struct {
	id, title, expected string
	// skip says why the check cannot run on this target ("" when it can).
	skip   string
	req    protoRequest
	expect expectation
}

// checkRun runs protocol checks on a session of its own.
type checkRun struct {
	r     *runner
	hangs int
}

// newCheckRun is a check run that goes on with the session of r, the
// runner of the audit's first worker (a check that breaks it connects
// another).
func newCheckRun(r *runner) *checkRun {
	// A case of the audit is no longer the owner of what this session
	// answers.
	r.owner, r.last = nil, nil
	return &checkRun{r: r}
}

// close ends the checks' session and returns how many late answers the
// runner's sessions saw.
func (cr *checkRun) close() int {
	cr.r.closeSession()
	return cr.r.lateAnswers
}

// run sends each check's request and judges its answer, in order.
func (cr *checkRun) run(ctx context.Context, checks []protoCheck) []report.Check {
	out := make([]report.Check, 0, len(checks))
	cr.r.progress(Event{Kind: EventChecks, Total: len(checks)})
	defer func() {
		for i := range out {
			cr.r.progress(Event{Kind: EventCheck, Check: &out[i]})
		}
	}()
	deadline := time.Now().Add(checkBudget)
	// A restart may take its whole --startup-timeout: the budget bounds it
	// too.
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for _, pc := range checks {
		c := report.Check{ID: pc.id, Group: groupOf(pc.id), Title: pc.title, Expected: pc.expected}
		switch {
		case ctx.Err() != nil:
			return out
		case pc.skip != "":
			c.Status, c.Detail = report.CheckSkip, pc.skip
		case cr.hangs >= maxCheckHangs:
			c.Status, c.Detail = report.CheckSkip, fmt.Sprintf("not run: the server did not answer %d checks before this one", cr.hangs)
		case time.Now().After(deadline):
			c.Status, c.Detail = report.CheckSkip, fmt.Sprintf("not run: the protocol checks' time budget of %s was spent", checkBudget)
		case !cr.r.ensureSession(rctx):
			c.Status, c.Detail = report.CheckSkip, "not run: "+orText(cr.r.endedEarly, fmt.Sprintf("restarting the server did not finish within the protocol checks' time budget of %s", checkBudget))
		default:
			cr.check(ctx, pc, &c)
		}
		out = append(out, c)
	}
	return out
}

// groupOf is the group of a check id ("envelope" of "envelope/no-meta").
func groupOf(id string) string {
	g, _, _ := strings.Cut(id, "/")
	return g
}

// check sends pc's request on the runner's session and judges the answer
// into c.
func (cr *checkRun) check(ctx context.Context, pc protoCheck, c *report.Check) {
	r := cr.r
	s := r.s
	shown := pc.req.params
	if pc.req.shown != nil {
		shown = pc.req.shown
	}
	c.Request = requestLine(pc.req.method, shown)
	for k, vs := range pc.req.headers {
		v := ""
		if len(vs) > 0 {
			v = vs[0]
		}
		c.Headers = append(c.Headers, k+": "+v)
	}
	slices.Sort(c.Headers)
	violationsBefore, _ := s.beginCall()
	if pc.req.notify {
		cr.notify(ctx, pc, c, violationsBefore)
		return
	}
	// The Mcp-Param headers come with the call's context (see
	// [session.callOnce]); the check's own replace them.
	probe := &httpProbe{headers: checkHeaders(pc.req, s.init.ProtocolVersion, nil)}
	raw, _, ms, err := s.timedCall(ctx, min(checkTimeout, r.cfg.Timeout), func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.callOnce(context.WithValue(cctx, httpProbeKey{}, probe), pc.req.method, pc.req.params)
	})
	c.DurationMs = ms
	o := s.outcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.waitExit(2 * time.Second)
	}
	o.Violations, _ = s.endCall(violationsBefore)
	if o.Hung || o.Unended() {
		cr.hangs++
	}
	ctype, _ := probe.contentType.Load().(string)
	judged := o
	if e := probe.rpcErr.Load(); o.Closed && e != nil {
		// An HTTP error whose body holds a JSON-RPC error the client could
		// not match to the request (id null): the refusal it is.
		judged.Closed, judged.RPCErr = false, e
	}
	judgeCheck(pc.expect, judged, httpAnswer{status: int(probe.status.Load()), contentType: ctype}, c)
	r.settle(ctx, s, o)
	if c.Crash != nil && s.proc != nil {
		c.Crash.ExitStatus = s.proc.ExitStatus()
		c.Crash.Stderr = r.stderrTail(s.proc.Stderr())
	}
}

// noticeWait is how long a check sent as a notification waits for an
// answer that must not come.
const noticeWait = 500 * time.Millisecond

// notify sends pc's request as a notification and judges what came back
// within [noticeWait]: nothing is the pass.
func (cr *checkRun) notify(ctx context.Context, pc protoCheck, c *report.Check, violationsBefore int) {
	s := cr.r.s
	line := []byte(`{"jsonrpc":"2.0","method":`)
	line = append(line, mustJSON(pc.req.method)...)
	if pc.req.params != nil {
		line = append(append(line, `,"params":`...), pc.req.params...)
	}
	c.Request = append(line, '}')
	start := time.Now()
	err := s.client.Notify(ctx, pc.req.method, pc.req.params)
	if err == nil {
		t := time.NewTimer(noticeWait)
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-s.client.Done():
		}
		t.Stop()
	}
	c.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	o := oracle.Outcome{Hung: true}
	if err != nil || isDone(s.client.Done()) {
		o = oracle.Outcome{Closed: true, ExitStatus: s.waitExit(2 * time.Second)}
	}
	o.Violations, _ = s.endCall(violationsBefore)
	judgeCheck(pc.expect, o, httpAnswer{}, c)
	cr.r.settle(ctx, s, oracle.Outcome{Closed: o.Closed})
}

// judgeCheck decides a check's status from the outcome of its request: a
// request that broke the server fails with the verdict's code, whatever
// the check expected; a refusal passes when its code is one the spec
// names; an answer passes only when the expectation allows it.
func judgeCheck(e expectation, o oracle.Outcome, h httpAnswer, c *report.Check) {
	fail := func(code, detail string) {
		c.Status, c.Code, c.Detail = report.CheckFail, code, detail
	}
	if over := o.Oversize; over != nil && (over.Ended || over.Malformed != "") {
		// Judged from the scan of the whole answer, as the oracle judges
		// it: an error answer over --max-response is a refusal with its
		// code, not a request served; a result, one served; one that
		// breaks JSON-RPC, a violation.
		o = o.Settled()
		o.Oversize = nil
	}
	switch {
	case o.Closed && h.status >= 400:
		// Over HTTP the server answered, with a status and no JSON-RPC
		// error in the body (the SDK's transport gives up on that
		// connection; each request of the stateless era is independent).
		got := fmt.Sprintf("refused with HTTP %d and no JSON-RPC error in the body (%s)", h.status, orText(h.contentType, "no content type"))
		switch {
		case e.codes != nil && e.deviation:
			// A probe's rule: an answer other than the spec's is a
			// deviation, over HTTP as over stdio.
			fail(report.CodeProtocolDeviation, got)
		case e.codes != nil:
			fail(report.CodeWrongErrorCode, got)
		default:
			c.Status, c.Detail = report.CheckPass, got
		}
	case o.Closed && h.status != 0:
		// Answered, but with no JSON-RPC response at all (a page, a 204,
		// a redirect): no refusal a client can read, yet no crash.
		fail(report.CodeWrongErrorCode, fmt.Sprintf("answered HTTP %d (%s) with no JSON-RPC response", h.status, orText(h.contentType, "no content type")))
	case o.Closed:
		how := report.CrashExit
		what := "the server exited"
		if o.ExitStatus == "" {
			how, what = report.CrashClosed, "the connection closed"
		} else {
			what += " (" + o.ExitStatus + ")"
		}
		c.Crash = &report.CrashInfo{How: how}
		fail(string(report.Crash), what+" before answering")
	case (len(o.Violations) > 0 || o.CutShort) && e.deviation:
		fail(report.CodeProtocolDeviation, orText(strings.Join(o.Violations, "; "), "the answer broke the protocol"))
	case len(o.Violations) > 0 || o.CutShort:
		fail(string(report.ProtocolViolation), orText(strings.Join(o.Violations, "; "), "the answer broke the protocol"))
	case o.Hung && e.silent:
		c.Status, c.Detail = report.CheckPass, "no answer, as for any notification"
	case (o.Hung || o.Unended()) && e.deviation:
		fail(report.CodeProtocolDeviation, "no answer within the check's timeout (the server is otherwise alive)")
	case o.Hung || o.Unended():
		fail(string(report.Hang), "no answer within the check's timeout")
	case o.Cancelled:
		c.Status, c.Detail = report.CheckSkip, "the run was interrupted"
	case o.Oversize != nil:
		fail(orCode(e.served), fmt.Sprintf("answered with %d bytes (over --max-response), not an error", o.Oversize.Bytes))
	case o.RPCErr != nil:
		code := o.RPCErr.Code
		c.ErrorCode = &code
		got := fmt.Sprintf("refused with %d: %s", code, excerpt(o.RPCErr.Message, 160))
		if h.status != 0 {
			got += fmt.Sprintf(" (HTTP %d)", h.status)
		}
		switch {
		case e.refusal != "":
			fail(e.refusal, got)
		case slices.Contains(e.deviationCodes, code):
			fail(report.CodeProtocolDeviation, got)
		case slices.Contains(e.legacy, code):
			fail(report.CodeLegacyErrorCode, got+"; "+orText(supersededCode(code), "a superseded code"))
		case e.codes != nil && !slices.Contains(e.codes, code) && e.deviation:
			fail(report.CodeProtocolDeviation, got)
		case e.codes != nil && !slices.Contains(e.codes, code):
			fail(report.CodeWrongErrorCode, got)
		case e.supported && len(supportedFromData(o.RPCErr.Data)) == 0:
			fail(report.CodeWrongErrorCode, got+", without data.supported listing the versions the server speaks")
		default:
			c.Status, c.Detail = report.CheckPass, got
		}
	case e.servedOK != nil && e.servedOK(o.Result):
		c.Status, c.Detail = report.CheckPass, "answered: "+excerpt(string(o.Result), 160)
	default:
		fail(orCode(e.served), "served as if valid: "+excerpt(string(o.Result), 160))
	}
}

// httpAnswer is the HTTP status and media type of a check's answer; zero
// over stdio.
type httpAnswer struct {
	status      int
	contentType string
}

func orCode(code string) string {
	if code == "" {
		return report.CodeEnvelopeIgnored
	}
	return code
}

// requestLine is the JSON-RPC request of a check as a reproducer sends it
// (id 2: in a stdio reproducer it follows a request with id 1).
func requestLine(method string, params json.RawMessage) json.RawMessage {
	m, _ := json.Marshal(method)
	line := `{"jsonrpc":"2.0","id":2,"method":` + string(m)
	if params != nil {
		line += `,"params":` + string(params)
	}
	return json.RawMessage(line + "}")
}

// checkFindings are the findings of the failed checks of rep.
func checkFindings(rep *report.Report, cfg Config) []report.Finding {
	var out []report.Finding
	for _, c := range rep.Checks {
		if c.Status != report.CheckFail {
			continue
		}
		code := report.DescribeCode(c.Code)
		if c.Group == report.CheckGroupLifecycle {
			out = append(out, lifecycleFinding(rep, cfg, c, code))
			continue
		}
		// The check's id names what was tested; the finding's id carries it
		// too (for expected: and baselines).
		// Judged from the audit's answers: the detail says what they
		// showed.
		rest := ": " + c.Detail
		if len(c.Request) > 0 || c.HTTP != "" {
			rest = "; expected " + orText(c.Expected, "a refusal") + ", got: " + c.Detail
		}
		msg := checkMessage(c, code, rest)
		f := report.Finding{
			ID:         "protocol/" + c.ID + "#" + c.Code,
			Severity:   code.Severity,
			Code:       c.Code,
			Message:    msg,
			Reproducer: reproduceCheck(rep, cfg, c),
		}
		if c.Group == concurrencyGroup {
			f.ID, f.Tool, f.Reproducer = c.ID+"#"+c.Code, c.Tool, reproduceConcurrent(rep, cfg, c)
		}
		out = append(out, f)
	}
	return out
}

// checkMessage is the message of a failed check's finding: the code's
// message, the check's id (and how the server crashed), then rest; cut at
// maxFindingMessage.
func checkMessage(c report.Check, code report.Code, rest string) string {
	msg := code.Message + " (" + c.ID
	if c.Crash != nil && c.Crash.How != "" {
		msg += ", " + c.Crash.How
	}
	msg += ")" + rest
	if len(msg) > maxFindingMessage {
		msg = cutUTF8(msg, maxFindingMessage) + "… (see the check's detail)"
	}
	return msg
}

// reproduceCheck sends a check's request as mcp-fuzz did: over stdio after
// an enveloped tools/list (the check's session had made modern requests
// before), over HTTP as one POST with the check's headers, or, for a check
// of plain HTTP, as its GET.
func reproduceCheck(rep *report.Report, cfg Config, c report.Check) report.Reproducer {
	if c.HTTP != "" && cfg.URL != "" {
		return reproduceHTTP(cfg, c)
	}
	if len(c.Request) == 0 {
		return report.Reproducer{}
	}
	line := string(escape.JSON(c.Request))
	r := report.Reproducer{JSONRPC: line}
	switch {
	case len(cfg.Command) > 0 && rep.Server.Era != EraModern:
		// The 2025 era: the handshake first.
		cd, prefix := shellContext(cfg)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s %s %s; sleep 2; } | %s%s | cut -c1-300",
			cd, shellQuote(reproInit), shellQuote(reproInitialized), shellQuote(line), prefix, shellJoin(cfg.Command))
	case len(cfg.Command) > 0:
		list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + string(reproEnvelope(rep.Server.ProtocolVersion)) + `}}`
		cd, prefix := shellContext(cfg)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s %s; sleep 2; } | %s%s | cut -c1-300",
			cd, shellQuote(list), shellQuote(line), prefix, shellJoin(cfg.Command))
	case cfg.URL != "" && rep.Server.Era != EraModern:
		// The 2025 era over HTTP: a session first, as a case's reproducer
		// opens one.
		r.Shell = sessionCurl(cfg, rep.Server.ProtocolVersion, line)
	case cfg.URL != "":
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(c.Request, &req)
		own := http.Header{}
		for _, h := range c.Headers {
			k, v, _ := strings.Cut(h, ": ")
			own.Set(k, v)
		}
		headers := checkHeaders(protoRequest{method: req.Method, params: req.Params, headers: own}, rep.Server.ProtocolVersion, cfg.params)
		var hs strings.Builder
		for _, k := range slices.Sorted(maps.Keys(headers)) {
			if v := headers.Get(k); v != "" {
				hs.WriteString(" -H " + shellQuote(k+": "+v))
			}
		}
		r.Shell = fmt.Sprintf("curl -si %s%s%s -d %s", shellQuote(redactURL(cfg.URL)), " "+curlHeaders(cfg), hs.String(), shellQuote(line))
	}
	return r
}

// reproduceHTTP is the curl line of a check that sent a plain HTTP request
// (c.HTTP): to the origin of --url, with the check's headers and the
// user's as "$ENV" references, bounded in time (a stream may never end).
func reproduceHTTP(cfg Config, c report.Check) report.Reproducer {
	_, path, _ := strings.Cut(c.HTTP, " ")
	target := redactURL(cfg.URL)
	if u, err := url.Parse(target); err == nil && path != u.EscapedPath() && path != "/"+u.EscapedPath() {
		// A well-known path: --url's query does not go with it.
		target = originOf(u) + path
	}
	var hs strings.Builder
	for _, h := range c.Headers {
		hs.WriteString(" -H " + shellQuote(h))
	}
	maxTime := checkTimeout
	if slices.Contains(c.Headers, "Accept: "+acceptSSE) {
		maxTime = sseWindow
	}
	return report.Reproducer{Shell: fmt.Sprintf("curl -si --max-time %d %s%s%s", int(maxTime.Seconds()), shellQuote(target), hs.String(), userCurlHeaders(cfg))}
}

// checkHeaders are the HTTP headers of a check's request: the routing
// headers a conforming client sends for it (Mcp-Method, Mcp-Name, and the
// version its _meta names, else the negotiated one, and the Mcp-Param
// headers of a tools/call of a tool in params), then the check's own,
// which break one of them.
func checkHeaders(req protoRequest, negotiated string, params map[string][]mcpheader.Binding) http.Header {
	var p struct {
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
		Meta      map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.params, &p)
	version := negotiated
	var v string
	if json.Unmarshal(p.Meta[metaProtocolVersion], &v) == nil && v != "" {
		version = v
	}
	h := http.Header{"Mcp-Method": {req.method}}
	if t := headerToken(version); t != "" {
		h.Set("Mcp-Protocol-Version", t)
	}
	if req.method == "tools/call" && p.Name != "" {
		h.Set("Mcp-Name", mcpNameHeader(p.Name))
		for k, vs := range mcpheader.Headers(params[p.Name], p.Arguments) {
			h[k] = vs
		}
	}
	for k, vs := range req.headers {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	return h
}

// reproduceConcurrent is the reproducer of a concurrency check: for a
// tool's, its valid case's shell one-liner run as many times at once as
// the check did; for a check of one session, its request line alone (the
// failure needs requests in flight together, which a shell line does not
// time reliably).
func reproduceConcurrent(rep *report.Report, cfg Config, c report.Check) report.Reproducer {
	line := report.Reproducer{JSONRPC: string(escape.JSON(c.Request))}
	i := slices.IndexFunc(rep.Tools, func(t report.Tool) bool { return t.Name == c.Tool })
	if c.Tool == "" || i < 0 {
		return line
	}
	j := slices.IndexFunc(rep.Tools[i].Cases, func(rc report.Case) bool { return rc.Kind == report.KindValid })
	if j < 0 {
		return line
	}
	vc := rep.Tools[i].Cases[j]
	vc.Timing = nil // one call per process
	r := reproduce(rep, cfg, c.Tool, vc)
	if r.Shell != "" && r.JSONRPC != "" {
		r.Shell = fmt.Sprintf("for i in $(seq %d); do ( %s ) & done; wait", max(rep.Config.Concurrency, 2), r.Shell)
	}
	return r
}
