package engine

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The report's goldens pin the order of the checks: the phases are listed
// in it, each either planning requests or running on its own.
func TestPhasesOrder(t *testing.T) {
	parallel(t)
	var names []string
	for _, p := range phases {
		names = append(names, p.name)
		if (p.plan == nil) == (p.run == nil) {
			t.Errorf("%s: want exactly one of plan and run", p.name)
		}
		if p.plan != nil && (p.first || p.ownSessions) {
			t.Errorf("%s: a planning phase runs in its batch, neither first nor on sessions of its own", p.name)
		}
	}
	want := []string{"envelope", "compliance", "resources", "prompts", "probes", "observed", "http", "handshake", "lifecycle", "concurrency"}
	if !slices.Equal(names, want) {
		t.Errorf("phases %v, want %v", names, want)
	}
}

// testAudit is an audit of a target that declares caps, in era, without a
// live session: no batch of protocol checks runs.
func testAudit(cfg Config, era, transport, caps string) *audit {
	s := &session.Session{Era: era}
	s.Init.Capabilities = json.RawMessage(caps)
	return &audit{cfg: cfg, cn: &session.Dialer{Transport: transport, Header: &session.HeaderTransport{}}, s: s, rep: &report.Report{}}
}

func TestPhasesApply(t *testing.T) {
	parallel(t)
	cases := []struct {
		name string
		a    *audit
		done bool // ctx ended
		want []string
	}{
		{"modern stdio", testAudit(Config{}, EraModern, "stdio", `{}`), false, []string{"envelope", "compliance"}},
		{"legacy with everything declared", testAudit(Config{Protocol: true, Sequential: true, Concurrency: 2}, EraLegacy, "stdio", `{"resources":{},"prompts":{}}`), false,
			[]string{"resources", "prompts", "probes", "lifecycle", "concurrency"}},
		{"static", testAudit(Config{NoCalls: true, Sequential: true, Concurrency: 2, Protocol: true}, EraModern, "stdio", `{"resources":{}}`), false, nil},
		{"interrupted", testAudit(Config{Sequential: true, Concurrency: 2}, EraLegacy, "stdio", `{}`), true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tc.done {
				cancel()
			}
			defer cancel()
			var got []string
			for _, p := range phases {
				if p.applies(ctx, tc.a) {
					got = append(got, p.name)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("applying phases %v, want %v", got, tc.want)
			}
		})
	}
}

// The requests of a modern audit over Streamable HTTP make its observed and
// HTTP checks apply; a fallback to initialize, its failed no-handshake
// check.
func TestPhasesAfterRequests(t *testing.T) {
	parallel(t)
	a := testAudit(Config{}, EraModern, "streamable-http", `{}`)
	a.requestsSent = true
	a.cn.HandshakeRequired = "initialize wanted"
	var got []string
	for _, p := range phases {
		if p.applies(context.Background(), a) {
			got = append(got, p.name)
		}
	}
	want := []string{"envelope", "compliance", "observed", "http", "handshake"}
	if !slices.Equal(got, want) {
		t.Errorf("applying phases %v, want %v", got, want)
	}
}

// A first phase runs before the others and is reported in its place; a
// phase whose preconditions fail does not run; with --no-calls no batch of
// requests is planned.
func TestRunPhases(t *testing.T) {
	parallel(t)
	var ran []string
	never := func(context.Context, *audit) bool { return false }
	check := func(name string) func(context.Context, *audit) []report.Check {
		return func(context.Context, *audit) []report.Check {
			ran = append(ran, name)
			return []report.Check{{ID: name + "/x"}}
		}
	}
	list := []phase{
		{name: "planned", plan: func(*audit) []protocheck.Check {
			ran = append(ran, "planned")
			return nil
		}},
		{name: "a", run: check("a")},
		{name: "skipped", when: []precondition{never}, run: check("skipped")},
		{name: "early", run: check("early"), first: true},
		{name: "own", run: check("own"), ownSessions: true},
	}
	a := testAudit(Config{NoCalls: true}, EraLegacy, "stdio", `{}`)
	var ids []string
	for _, c := range runPhases(context.Background(), a, list) {
		ids = append(ids, c.ID)
	}
	if want := []string{"early", "a", "own"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	if want := []string{"a/x", "early/x", "own/x"}; !slices.Equal(ids, want) {
		t.Errorf("checks %v, want %v", ids, want)
	}
	if a.requestsSent {
		t.Error("a static audit sent protocol checks")
	}
}
