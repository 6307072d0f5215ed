package session

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

// Observed collects, over every session of a run, what the server's answers
// and messages showed that the engine's protocol checks judge afterwards.
// Whatever the server controls is bounded and redacted:
// method names and values are redacted, then cut (a secret the cut split
// would be past redacting), and only the first few distinct ones are kept.
type Observed struct {
	// leak redacts the run's secrets; nil redacts nothing.
	leak *leak.Detector

	Mu sync.Mutex
	// inputRequired is the first tools/call answered with input_required
	// and a requestState.
	inputRequired *SampleCall
	// Results counts the results of mcp-fuzz's own modern requests, by
	// method (mcp-fuzz's methods: a bounded set).
	Results map[string]*ResultStats
	// Codes are the superseded or reserved error codes answered, each with
	// the first method it answered.
	Codes map[int64]string
	// InputKinds are the input requests of kinds the client did not
	// declare, or on methods that allow none: "sampling/createMessage on
	// tools/call".
	InputKinds []string
	// ServerMessages counts the requests and notifications the server
	// sent, by method.
	ServerMessages map[string]int
}

// ResultStats is what the results of one method showed.
type ResultStats struct {
	N, Untyped int
	// CacheProblem is the first problem with ttlMs/cacheScope, "" when
	// none (or not a cacheable method).
	CacheProblem string
}

// maxObservedNames bounds the distinct server-chosen names kept.
const maxObservedNames = 8

// sawInputRequired keeps the first tools/call of tool answered with
// input_required and a requestState: params as sent (with the envelope),
// the state handed out and the inputResponses mcp-fuzz sent back.
func (o *Observed) sawInputRequired(method string, params json.RawMessage, state string, inputs map[string]any) {
	if o == nil || method != "tools/call" {
		return
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	o.Mu.Lock()
	defer o.Mu.Unlock()
	if o.inputRequired == nil {
		o.inputRequired = &SampleCall{Tool: p.Name, Params: params, State: state, Inputs: inputs}
	}
}

// Sample returns the input_required call kept, nil when none was.
func (o *Observed) Sample() *SampleCall {
	o.Mu.Lock()
	defer o.Mu.Unlock()
	return o.inputRequired
}

// sawResult records a modern result of method: whether it carried
// resultType, and for a cacheable method whether its cache hints are
// sound. fields are the result's members.
func (o *Observed) sawResult(method string, fields map[string]json.RawMessage) {
	if o == nil {
		return
	}
	_, typed := fields["resultType"]
	problem := ""
	if Cacheable(method) {
		// The problem quotes the server's values: those two, redacted.
		hints := map[string]json.RawMessage{}
		for _, k := range []string{"ttlMs", "cacheScope"} {
			if v, ok := fields[k]; ok {
				hints[k] = json.RawMessage(o.redact(string(v)))
			}
		}
		problem = cacheHintProblem(hints)
	}
	o.Mu.Lock()
	defer o.Mu.Unlock()
	if o.Results == nil {
		o.Results = map[string]*ResultStats{}
	}
	st := o.Results[method]
	if st == nil {
		st = &ResultStats{}
		o.Results[method] = st
	}
	st.N++
	if !typed {
		st.Untyped++
	}
	if st.CacheProblem == "" {
		st.CacheProblem = problem
	}
}

// sawError records an error code of the stateless era's superseded or
// reserved ones.
func (o *Observed) sawError(method string, code int64) {
	if o == nil || protocheck.Superseded(code) == "" {
		return
	}
	o.Mu.Lock()
	defer o.Mu.Unlock()
	if o.Codes == nil {
		o.Codes = map[int64]string{}
	}
	if _, ok := o.Codes[code]; !ok && len(o.Codes) < maxObservedNames {
		o.Codes[code] = method
	}
}

// sawInputRequests records the input requests of an input_required answer
// to method that the client did not declare (mcp-fuzz declares
// elicitation only), or that method does not allow at all.
func (o *Observed) sawInputRequests(method string, requests map[string]json.RawMessage) {
	if o == nil {
		return
	}
	var bad []string
	allowed := method == "tools/call" || method == "prompts/get" || method == "resources/read"
	if !allowed && len(requests) == 0 {
		// A requestState alone: still an input_required answer where
		// the revision allows none.
		bad = append(bad, "input_required on "+method)
	}
	for _, k := range slices.Sorted(maps.Keys(requests)) {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(requests[k], &req)
		if !allowed || req.Method != "elicitation/create" {
			bad = append(bad, textcut.UTF8(o.redact(req.Method), 64)+" on "+method)
		}
	}
	if len(bad) == 0 {
		return
	}
	o.Mu.Lock()
	defer o.Mu.Unlock()
	for _, b := range bad {
		if len(o.InputKinds) < maxObservedNames && !slices.Contains(o.InputKinds, b) {
			o.InputKinds = append(o.InputKinds, b)
		}
	}
}

// sawServerMessage counts a request or notification the server sent.
func (o *Observed) sawServerMessage(method string, _ bool) {
	if o == nil {
		return
	}
	method = textcut.UTF8(o.redact(method), 64)
	o.Mu.Lock()
	defer o.Mu.Unlock()
	if o.ServerMessages == nil {
		o.ServerMessages = map[string]int{}
	}
	if _, ok := o.ServerMessages[method]; ok || len(o.ServerMessages) < maxObservedNames {
		o.ServerMessages[method]++
	}
}

// redact is server text with the run's secrets replaced.
func (o *Observed) redact(s string) string {
	if o.leak == nil {
		return s
	}
	return o.leak.Redact(s)
}

// SampleCall is a call of the audit that a check sends again, changed.
type SampleCall struct {
	Tool   string
	Params json.RawMessage // with the _meta envelope
	// Args are the call's arguments and bindings its tool's x-mcp-header
	// bindings: the Mcp-Param check breaks one of the headers they make
	// (the call's context carries the others; see [Session.CallOnce]).
	Args     json.RawMessage
	Bindings []mcpheader.Binding
	State    string         // the requestState the server handed out
	Inputs   map[string]any // the inputResponses sent back with it
}

// Cacheable reports whether results of method carry cache hints
// (CacheableResult).
func Cacheable(method string) bool {
	switch method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read":
		return true
	}
	return false
}

// maxTTL is the longest ttlMs taken as a sane freshness hint: a year.
const maxTTL = 365 * 24 * 3600 * 1000

// cacheHintProblem says what is wrong with a cacheable result's ttlMs and
// cacheScope, "" when nothing is.
func cacheHintProblem(fields map[string]json.RawMessage) string {
	var problems []string
	var ttl float64
	switch raw, ok := fields["ttlMs"]; {
	case !ok:
		problems = append(problems, "no ttlMs")
	case json.Unmarshal(raw, &ttl) != nil:
		problems = append(problems, "ttlMs is not a number: "+textcut.Excerpt(string(raw), 40))
	case ttl < 0 || ttl != math.Trunc(ttl):
		problems = append(problems, fmt.Sprintf("ttlMs %s is not a non-negative integer", textcut.Excerpt(string(raw), 40)))
	case ttl > maxTTL:
		problems = append(problems, fmt.Sprintf("ttlMs %s is over a year", textcut.Excerpt(string(raw), 40)))
	}
	var scope string
	switch raw, ok := fields["cacheScope"]; {
	case !ok:
		problems = append(problems, "no cacheScope")
	case json.Unmarshal(raw, &scope) != nil || (scope != "public" && scope != "private"):
		problems = append(problems, "cacheScope "+textcut.Excerpt(string(raw), 40)+" is neither \"public\" nor \"private\"")
	}
	return strings.Join(problems, ", ")
}
