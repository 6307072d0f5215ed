package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
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
		got, err := withMembers(tc.params, "_meta", json.RawMessage(`{}`))
		if err != nil || string(got) != tc.want {
			t.Errorf("withMembers(%v) = %s, %v; want %s", tc.params, got, err, tc.want)
		}
	}
	if _, err := withMembers(json.RawMessage(`[1]`), "_meta", 1); err == nil {
		t.Error("withMembers of an array: no error")
	}
}

// TestParseDiscoverHostile: whatever a server answers to server/discover,
// parsing never panics and keeps a bounded list of versions.
func TestParseDiscoverHostile(t *testing.T) {
	many := make([]string, 10000)
	for i := range many {
		many[i] = strings.Repeat("9", 1000)
	}
	manyJSON, _ := json.Marshal(many)
	answers := []string{
		`null`, `1`, `"x"`, `[]`, `{}`, `{"supportedVersions":null}`, `{"supportedVersions":"2026-07-28"}`,
		`{"supportedVersions":[1,null,{}]}`, `{"supportedVersions":[],"capabilities":7}`,
		`{"supportedVersions":["2026-07-28"],"instructions":{}}`,
		`{"supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":7,"version":[]}}}`,
		`{"supportedVersions":["2026-07-28"],"_meta":"x"}`,
		`{"supportedVersions":` + string(manyJSON) + `}`,
	}
	for _, a := range answers {
		s := &session{leak: leak.NewDetector(nil)}
		d, err := s.parseDiscover(json.RawMessage(a))
		if len(d.supported) > maxSupportedVersions {
			t.Errorf("%.60s: kept %d versions", a, len(d.supported))
		}
		for _, v := range d.supported {
			if len(v) > maxVersionLen {
				t.Errorf("%.60s: kept a version of %d bytes", a, len(v))
			}
		}
		_ = err
	}
	if got := supportedFromData(json.RawMessage(`{"supported":` + string(manyJSON) + `}`)); len(got) != maxSupportedVersions {
		t.Errorf("data.supported kept %d", len(got))
	}
	if pickModern([]string{"2025-11-25", "2026-07-28"}) != "2026-07-28" || pickModern([]string{"2025-11-25"}) != "" {
		t.Error("pickModern")
	}
}

func TestInputRequiredParse(t *testing.T) {
	big := strings.Repeat("s", maxRequestState+1)
	reqs := map[string]any{}
	for i := range maxInputRequests + 1 {
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
		done, requests, _, err := inputRequired(json.RawMessage(tc.raw))
		if done != tc.done || (err != nil) != tc.bad {
			t.Errorf("%.80s: done %v err %v; want done %v bad %v", tc.raw, done, err, tc.done, tc.bad)
		}
		if !tc.bad && !tc.done {
			r := inputResponses(requests)
			if len(r) != 1 || fmt.Sprint(r["a"]) != "map[action:decline]" {
				t.Errorf("responses %v: want elicitation declined, sampling refused", r)
			}
		}
	}
}

func TestValidProtocolVersion(t *testing.T) {
	for v, ok := range map[string]bool{"2026-07-28": true, "2026-7-28": false, "": false, "2026-07-28x": false, "latest": false} {
		if validProtocolVersion(v) != ok {
			t.Errorf("validProtocolVersion(%q) != %v", v, ok)
		}
	}
}

// TestInputRequiredNamesTheSameRequest: of several requests without a
// method, the error names the first by key, in every run.
func TestInputRequiredNamesTheSameRequest(t *testing.T) {
	raw := json.RawMessage(`{"resultType":"input_required","inputRequests":{"k9":{},"k2":{},"k0":{},"k5":{},"k7":{},"k1":{},"k3":{},"k8":{},"k4":{},"k6":{}}}`)
	for range 20 {
		_, _, _, err := inputRequired(raw)
		if err == nil || !strings.Contains(err.Error(), `inputRequests["k0"] has no method`) {
			t.Fatalf("err = %v, want the first key, k0, named", err)
		}
	}
}

func TestProbeTimeoutLeavesHalfTheStartup(t *testing.T) {
	if got := probeTimeout(context.Background()); got != discoverTimeout {
		t.Errorf("no deadline: %s, want %s", got, discoverTimeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if got := probeTimeout(ctx); got > 4*time.Second || got < 3*time.Second {
		t.Errorf("8 s left: %s, want about 4 s", got)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	if got := probeTimeout(ctx2); got != discoverTimeout {
		t.Errorf("a minute left: %s, want %s", got, discoverTimeout)
	}
}

// The metadata lint names the request the server described itself in: a
// modern-era server has no initialize result to blame.
func TestStaticLintNamesTheEraRequest(t *testing.T) {
	for era, want := range map[string]string{
		EraModern: `the server/discover result has no "instructions"`,
		EraLegacy: `the initialize result has no "instructions"`,
	} {
		s := &session{era: era}
		var got string
		for _, l := range staticLint(s, nil) {
			if l.Code == "no_instructions" {
				got = l.Message
			}
		}
		if got != want {
			t.Errorf("era %s: no_instructions says %q, want %q", era, got, want)
		}
	}
}
