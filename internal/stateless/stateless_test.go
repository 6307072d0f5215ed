package stateless

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestWithMembers(t *testing.T) {
	for _, tc := range []struct {
		params any
		want   string
	}{
		{nil, `{"_meta":{}}`},
		{json.RawMessage(`{}`), `{"_meta":{}}`},
		{json.RawMessage(` { } `), `{"_meta":{}}`},
		{json.RawMessage(`{"name":"t","arguments":{"a":1,"a":2}}`), `{"_meta":{},"name":"t","arguments":{"a":1,"a":2}}`},
		{map[string]any{"cursor": "c"}, `{"_meta":{},"cursor":"c"}`},
	} {
		got, err := WithMembers(tc.params, "_meta", json.RawMessage(`{}`))
		if err != nil || string(got) != tc.want {
			t.Errorf("withMembers(%v) = %s, %v; want %s", tc.params, got, err, tc.want)
		}
	}
	if _, err := WithMembers(json.RawMessage(`[1]`), "_meta", 1); err == nil {
		t.Error("withMembers of an array: no error")
	}
}

func TestInputRequiredParse(t *testing.T) {
	big := strings.Repeat("s", MaxRequestState+1)
	reqs := map[string]any{}
	for i := range MaxInputRequests + 1 {
		reqs[fmt.Sprint(i)] = map[string]any{"method": "elicitation/create"}
	}
	tooMany, _ := json.Marshal(map[string]any{"resultType": "input_required", "inputRequests": reqs})
	for _, tc := range []struct {
		raw       string
		done, bad bool
	}{
		{`{"content":[]}`, true, false},
		{`{"resultType":"complete"}`, true, false},
		{`null`, true, false},
		{`{"resultType":5}`, true, true},
		{`{"resultType":"maybe"}`, true, true},
		{`{"resultType":"input_required"}`, false, true},
		{`{"resultType":"input_required","inputRequests":[]}`, false, true},
		{`{"resultType":"input_required","inputRequests":{"a":{}}}`, false, true},
		{`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"}},"requestState":7}`, false, true},
		{`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"}},"requestState":"` + big + `"}`, false, true},
		{string(tooMany), false, true},
		{`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"},"b":{"method":"sampling/createMessage"}},"requestState":"s"}`, false, false},
	} {
		done, requests, _, err := InputRequired(json.RawMessage(tc.raw))
		if done != tc.done || (err != nil) != tc.bad {
			t.Errorf("%.80s: done %v err %v; want done %v bad %v", tc.raw, done, err, tc.done, tc.bad)
		}
		if !tc.bad && !tc.done {
			r := InputResponses(requests)
			if len(r) != 1 || fmt.Sprint(r["a"]) != "map[action:decline]" {
				t.Errorf("responses %v: want elicitation declined, sampling refused", r)
			}
		}
	}
}

// TestInputRequiredNamesTheSameRequest: of several requests without a
// method, the error names the first by key, in every run.
func TestInputRequiredNamesTheSameRequest(t *testing.T) {
	raw := json.RawMessage(`{"resultType":"input_required","inputRequests":{"k9":{},"k2":{},"k0":{},"k5":{},"k7":{},"k1":{},"k3":{},"k8":{},"k4":{},"k6":{}}}`)
	for range 20 {
		_, _, _, err := InputRequired(raw)
		if err == nil || !strings.Contains(err.Error(), `inputRequests["k0"] has no method`) {
			t.Fatalf("err = %v, want the first key, k0, named", err)
		}
	}
}
