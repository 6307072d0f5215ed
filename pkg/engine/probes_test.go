package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// checkStatuses maps each check id of rep to "status code".
func checkStatuses(rep *report.Report) map[string]string {
	out := map[string]string{}
	for _, c := range rep.Checks {
		out[c.ID] = strings.TrimSpace(c.Status + " " + c.Code)
	}
	return out
}

// TestResourcesPromptsAndProbesClean: a server that refuses every
// malformed request passes every resources, prompts and probe check.
func TestResourcesPromptsAndProbesClean(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "prompts-resources", func(c *Config) { c.Protocol = true })
	got := checkStatuses(rep)
	for _, id := range []string{"resources/read-missing", "resources/template-1", "prompts/get-unknown", "prompts/get-missing-argument", "prompts/get-wrong-type",
		"probe/unknown-method", "probe/unknown-tool", "probe/garbage-cursor", "probe/params-not-object", "probe/no-id", "probe/ping", "probe/second-initialize"} {
		if got[id] != report.CheckPass {
			t.Errorf("%s: %q", id, got[id])
		}
	}
	if rep.Dimensions["robustness"].Reason == "" || !strings.Contains(rep.Dimensions["robustness"].Reason, "14 of 14 bad inputs") {
		t.Errorf("robustness %q: the five resources and prompts checks count as bad inputs", rep.Dimensions["robustness"].Reason)
	}
	if without := runFixture(t, "prompts-resources", nil); strings.Contains(strings.Join(checkIDs(without), " "), "probe/") {
		t.Errorf("probes without --protocol: %v", checkIDs(without))
	}
}

func checkIDs(rep *report.Report) []string {
	var ids []string
	for _, c := range rep.Checks {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestProbesDeviations: the TypeScript SDK's habits — no answer to params
// that are not an object, -32603 for a malformed template parameter or a
// wrong-typed prompt argument, a garbage cursor served — are warnings,
// never a hang or crash cap: the grade is the clean twin's.
func TestProbesDeviations(t *testing.T) {
	parallel(t)
	clean := runFixture(t, "prompts-resources", func(c *Config) { c.Protocol = true })
	rep := runFixture(t, "prompts-resources", func(c *Config) { c.Protocol = true; c.Command = append(c.Command, "--deviant") })
	got := checkStatuses(rep)
	for id, want := range map[string]string{
		"resources/template-1":         "fail " + report.CodeProtocolDeviation,
		"prompts/get-wrong-type":       "fail " + report.CodeProtocolDeviation,
		"probe/params-not-object":      "fail " + report.CodeProtocolDeviation,
		"probe/garbage-cursor":         "fail " + report.CodeBadRequestServed,
		"probe/no-id":                  report.CheckPass,
		"resources/read-missing":       report.CheckPass,
		"prompts/get-missing-argument": report.CheckPass,
	} {
		if got[id] != want {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
	if *rep.Grade != *clean.Grade || *rep.Score != *clean.Score || len(rep.Critical) > 0 {
		t.Errorf("deviant %s %d %v, clean %s %d: deviations moved the grade", *rep.Grade, *rep.Score, rep.Critical, *clean.Grade, *clean.Score)
	}
	f := checkFinding(t, rep, "probe/params-not-object")
	if f.Severity != report.SeverityWarning {
		t.Errorf("finding %+v", f)
	}
}

// TestResourceTemplateCrash: a server that exits on a malformed template
// parameter fails the check with a crash that caps the grade and costs
// Robustness like a tool's crash; its reproducer does the 2025 handshake.
func TestResourceTemplateCrash(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "prompts-resources", func(c *Config) { c.Command = append(c.Command, "--crash-on-template") })
	if got := checkStatuses(rep)["resources/template-1"]; got != "fail crash" {
		t.Fatalf("template-1: %q", got)
	}
	if *rep.Grade != "D" || !strings.Contains(rep.Dimensions["robustness"].Reason, "13 of 14 bad inputs") {
		t.Errorf("grade %s, robustness %q", *rep.Grade, rep.Dimensions["robustness"].Reason)
	}
	f := checkFinding(t, rep, "resources/template-1")
	if !strings.Contains(f.Reproducer.Shell, `"method":"initialize"`) {
		t.Fatalf("reproducer %s", f.Reproducer.Shell)
	}
	out := runShell(t, f.Reproducer.Shell)
	if !strings.Contains(out, `"id":1`) || strings.Contains(out, `"id":2`) {
		t.Errorf("reproducer %s printed %q; want the handshake answered and the read not", f.Reproducer.Shell, out)
	}
}

// TestProbeRequestsBounded: a listed template or prompt whose text is long
// (a template of many variables grows with each) is not put in a check's
// request; the next one that fits is.
func TestProbeRequestsBounded(t *testing.T) {
	parallel(t)
	required := func(names ...string) []any {
		var args []any
		for _, n := range names {
			args = append(args, map[string]any{"name": n, "required": true})
		}
		return args
	}
	long := strings.Repeat("a", 100000)
	tp := probeTarget{listed: session.ListedItems{
		Templates: []json.RawMessage{
			mustJSON(map[string]any{"uriTemplate": "file:///" + strings.Repeat("{x}", 50000)}),
			mustJSON(map[string]any{"uriTemplate": "file:///{x}"}),
		},
		Prompts: []json.RawMessage{
			mustJSON(map[string]any{"name": long, "arguments": required("a")}),
			mustJSON(map[string]any{"name": "short", "arguments": required(long, "b")}),
		},
	}}
	ids := map[string]protocheck.Check{}
	for _, pc := range append(resourceChecks(tp), promptChecks(tp)...) {
		ids[pc.ID] = pc
		if len(pc.Req.Params) > 2*maxProbeName {
			t.Errorf("%s sends %d bytes of params", pc.ID, len(pc.Req.Params))
		}
	}
	if _, ok := ids["resources/template-1"]; ok {
		t.Error("the long template was read")
	}
	if _, ok := ids["resources/template-2"]; !ok {
		t.Errorf("the short template was not read: %v", ids)
	}
	if p := string(ids["prompts/get-missing-argument"].Req.Params); !strings.Contains(p, `"name":"short"`) {
		t.Errorf("missing-argument params %.200s", p)
	}
	if p := string(ids["prompts/get-wrong-type"].Req.Params); !strings.Contains(p, `"b":12345`) {
		t.Errorf("wrong-type params %.200s", p)
	}
}
