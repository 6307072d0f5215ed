package engine

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
)

// observed collects, over every session of a run, what the server's answers
// and messages showed that the protocol checks judge afterwards (see
// [observedChecks]). Whatever the server controls is bounded and redacted:
// method names and values are redacted, then cut (a secret the cut split
// would be past redacting), and only the first few distinct ones are kept.
type observed struct {
	// leak redacts the run's secrets; nil redacts nothing.
	leak *leak.Detector

	mu sync.Mutex
	// inputRequired is the first tools/call answered with input_required
	// and a requestState.
	inputRequired *sampleCall
	// results counts the results of mcp-fuzz's own modern requests, by
	// method (mcp-fuzz's methods: a bounded set).
	results map[string]*resultStats
	// codes are the superseded or reserved error codes answered, each with
	// the first method it answered.
	codes map[int64]string
	// inputKinds are the input requests of kinds the client did not
	// declare, or on methods that allow none: "sampling/createMessage on
	// tools/call".
	inputKinds []string
	// serverMessages counts the requests and notifications the server
	// sent, by method.
	serverMessages map[string]int
}

// resultStats is what the results of one method showed.
type resultStats struct {
	n, untyped int
	// cacheProblem is the first problem with ttlMs/cacheScope, "" when
	// none (or not a cacheable method).
	cacheProblem string
}

// maxObservedNames bounds the distinct server-chosen names kept.
const maxObservedNames = 8

// sawInputRequired keeps the first tools/call of tool answered with
// input_required and a requestState: params as sent (with the envelope),
// the state handed out and the inputResponses mcp-fuzz sent back.
func (o *observed) sawInputRequired(method string, params json.RawMessage, state string, inputs map[string]any) {
	if o == nil || method != "tools/call" {
		return
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.inputRequired == nil {
		o.inputRequired = &sampleCall{tool: p.Name, params: params, state: state, inputs: inputs}
	}
}

// sample returns the input_required call kept, nil when none was.
func (o *observed) sample() *sampleCall {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.inputRequired
}

// sawResult records a modern result of method: whether it carried
// resultType, and for a cacheable method whether its cache hints are
// sound. fields are the result's members.
func (o *observed) sawResult(method string, fields map[string]json.RawMessage) {
	if o == nil {
		return
	}
	_, typed := fields["resultType"]
	problem := ""
	if cacheable(method) {
		// The problem quotes the server's values: those two, redacted.
		hints := map[string]json.RawMessage{}
		for _, k := range []string{"ttlMs", "cacheScope"} {
			if v, ok := fields[k]; ok {
				hints[k] = json.RawMessage(o.redact(string(v)))
			}
		}
		problem = cacheHintProblem(hints)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.results == nil {
		o.results = map[string]*resultStats{}
	}
	st := o.results[method]
	if st == nil {
		st = &resultStats{}
		o.results[method] = st
	}
	st.n++
	if !typed {
		st.untyped++
	}
	if st.cacheProblem == "" {
		st.cacheProblem = problem
	}
}

// sawError records an error code of the stateless era's superseded or
// reserved ones.
func (o *observed) sawError(method string, code int64) {
	if o == nil || protocheck.Superseded(code) == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.codes == nil {
		o.codes = map[int64]string{}
	}
	if _, ok := o.codes[code]; !ok && len(o.codes) < maxObservedNames {
		o.codes[code] = method
	}
}

// sawInputRequests records the input requests of an input_required answer
// to method that the client did not declare (mcp-fuzz declares
// elicitation only), or that method does not allow at all.
func (o *observed) sawInputRequests(method string, requests map[string]json.RawMessage) {
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
			bad = append(bad, cutUTF8(o.redact(req.Method), 64)+" on "+method)
		}
	}
	if len(bad) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, b := range bad {
		if len(o.inputKinds) < maxObservedNames && !slices.Contains(o.inputKinds, b) {
			o.inputKinds = append(o.inputKinds, b)
		}
	}
}

// sawServerMessage counts a request or notification the server sent.
func (o *observed) sawServerMessage(method string, _ bool) {
	if o == nil {
		return
	}
	method = cutUTF8(o.redact(method), 64)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.serverMessages == nil {
		o.serverMessages = map[string]int{}
	}
	if _, ok := o.serverMessages[method]; ok || len(o.serverMessages) < maxObservedNames {
		o.serverMessages[method]++
	}
}

// redact is server text with the run's secrets replaced.
func (o *observed) redact(s string) string {
	if o.leak == nil {
		return s
	}
	return o.leak.Redact(s)
}
