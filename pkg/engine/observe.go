package engine

import (
	"encoding/json"
	"sync"
)

// observed collects, over every session of a run, what the server's modern
// answers showed that a protocol check needs afterwards.
type observed struct {
	mu sync.Mutex
	// inputRequired is the first tools/call answered with input_required
	// and a requestState.
	inputRequired *sampleCall
}

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
