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
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
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

// run sends each check's request and judges its answer, in order.
func (cr *checkRun) run(ctx context.Context, checks []protocheck.Check) []report.Check {
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
		c := report.Check{ID: pc.ID, Group: protocheck.GroupOf(pc.ID), Title: pc.Title, Expected: pc.Expected}
		switch {
		case ctx.Err() != nil:
			return out
		case pc.Skip != "":
			c.Status, c.Detail = report.CheckSkip, pc.Skip
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

// check sends pc's request on the runner's session and judges the answer
// into c.
func (cr *checkRun) check(ctx context.Context, pc protocheck.Check, c *report.Check) {
	r := cr.r
	s := r.s
	shown := pc.Req.Params
	if pc.Req.Shown != nil {
		shown = pc.Req.Shown
	}
	c.Request = protocheck.RequestLine(pc.Req.Method, shown)
	for k, vs := range pc.Req.Headers {
		v := ""
		if len(vs) > 0 {
			v = vs[0]
		}
		c.Headers = append(c.Headers, k+": "+v)
	}
	slices.Sort(c.Headers)
	violationsBefore, _ := s.BeginCall()
	if pc.Req.Notify {
		cr.notify(ctx, pc, c, violationsBefore)
		return
	}
	// The Mcp-Param headers come with the call's context (see
	// [session.Session.CallOnce]); the check's own replace them.
	probe := &session.HTTPProbe{Headers: checkHeaders(pc.Req, s.Init.ProtocolVersion, nil)}
	raw, _, ms, err := s.TimedCall(ctx, min(checkTimeout, r.cfg.Timeout), func(cctx context.Context) (json.RawMessage, []string, error) {
		return s.CallOnce(context.WithValue(cctx, session.ProbeKey{}, probe), pc.Req.Method, pc.Req.Params)
	})
	c.DurationMs = ms
	o := s.OutcomeOf(ctx, raw, err)
	if o.Closed {
		o.ExitStatus = s.WaitExit(2 * time.Second)
	}
	o.Violations, _ = s.EndCall(violationsBefore)
	if o.Hung || o.Unended() {
		cr.hangs++
	}
	ctype, _ := probe.ContentType.Load().(string)
	judged := o
	if e := probe.RPCErr.Load(); o.Closed && e != nil {
		// An HTTP error whose body holds a JSON-RPC error the client could
		// not match to the request (id null): the refusal it is.
		judged.Closed, judged.RPCErr = false, e
	}
	protocheck.Judge(pc.Expect, judged, protocheck.HTTPAnswer{Status: int(probe.Status.Load()), ContentType: ctype}, c)
	r.settle(ctx, s, o)
	if c.Crash != nil && s.Proc != nil {
		c.Crash.ExitStatus = s.Proc.ExitStatus()
		c.Crash.Stderr = r.stderrTail(s.Proc.Stderr())
	}
}

// noticeWait is how long a check sent as a notification waits for an
// answer that must not come.
const noticeWait = 500 * time.Millisecond

// notify sends pc's request as a notification and judges what came back
// within [noticeWait]: nothing is the pass.
func (cr *checkRun) notify(ctx context.Context, pc protocheck.Check, c *report.Check, violationsBefore int) {
	s := cr.r.s
	line := []byte(`{"jsonrpc":"2.0","method":`)
	line = append(line, mustJSON(pc.Req.Method)...)
	if pc.Req.Params != nil {
		line = append(append(line, `,"params":`...), pc.Req.Params...)
	}
	c.Request = append(line, '}')
	start := time.Now()
	err := s.Client.Notify(ctx, pc.Req.Method, pc.Req.Params)
	if err == nil {
		t := time.NewTimer(noticeWait)
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-s.Client.Done():
		}
		t.Stop()
	}
	c.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	o := oracle.Outcome{Hung: true}
	if err != nil || s.Client.Ended() {
		o = oracle.Outcome{Closed: true, ExitStatus: s.WaitExit(2 * time.Second)}
	}
	o.Violations, _ = s.EndCall(violationsBefore)
	protocheck.Judge(pc.Expect, o, protocheck.HTTPAnswer{}, c)
	cr.r.settle(ctx, s, oracle.Outcome{Closed: o.Closed})
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
		headers := checkHeaders(protocheck.Request{Method: req.Method, Params: req.Params, Headers: own}, rep.Server.ProtocolVersion, cfg.params)
		var hs strings.Builder
		for _, k := range slices.Sorted(maps.Keys(headers)) {
			if v := headers.Get(k); v != "" {
				hs.WriteString(" -H " + shellQuote(k+": "+v))
			}
		}
		r.Shell = fmt.Sprintf("curl -si %s%s%s -d %s", shellQuote(secret.RedactURL(cfg.URL)), " "+curlHeaders(cfg), hs.String(), shellQuote(line))
	}
	return r
}

// reproduceHTTP is the curl line of a check that sent a plain HTTP request
// (c.HTTP): to the origin of --url, with the check's headers and the
// user's as "$ENV" references, bounded in time (a stream may never end).
func reproduceHTTP(cfg Config, c report.Check) report.Reproducer {
	_, path, _ := strings.Cut(c.HTTP, " ")
	target := secret.RedactURL(cfg.URL)
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
func checkHeaders(req protocheck.Request, negotiated string, params map[string][]mcpheader.Binding) http.Header {
	var p struct {
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
		Meta      map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	version := negotiated
	var v string
	if json.Unmarshal(p.Meta[stateless.MetaProtocolVersion], &v) == nil && v != "" {
		version = v
	}
	h := http.Header{"Mcp-Method": {req.Method}}
	if t := mcpheader.Token(version); t != "" {
		h.Set("Mcp-Protocol-Version", t)
	}
	if req.Method == "tools/call" && p.Name != "" {
		h.Set("Mcp-Name", mcpheader.NameValue(p.Name))
		for k, vs := range mcpheader.Headers(params[p.Name], p.Arguments) {
			h[k] = vs
		}
	}
	for k, vs := range req.Headers {
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
