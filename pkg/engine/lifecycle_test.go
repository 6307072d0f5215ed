package engine

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestValidLifecycle(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		groups []LifecycleGroup
		want   string
	}{
		{[]LifecycleGroup{{Create: "a", Read: "b"}}, "[0]: needs create, read and delete"},
		{[]LifecycleGroup{{Create: "a", Read: "b", Delete: "b"}}, "[0]: create, read and delete must be three different tools (got a, b, b)"},
		{[]LifecycleGroup{{Resource: "--", Create: "a", Read: "b", Delete: "c"}}, `[0]: resource "--": want a noun`},
		{[]LifecycleGroup{{Create: "create_note", Read: "b", Delete: "c"}, {Resource: "Note", Create: "x", Read: "y", Delete: "z"}}, "[1]: resource note is mapped twice (also [0])"},
	} {
		err := Config{Command: []string{"x"}, Sequential: true, IncludeDestructive: true, Lifecycle: tc.groups}.Validate()
		if err == nil || !strings.Contains(err.Error(), "Lifecycle "+tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.groups, err, tc.want)
		}
	}
	if err := (Config{Command: []string{"x"}, Lifecycle: []LifecycleGroup{{Create: "a", Read: "b", Delete: "c"}}}).Validate(); err != nil {
		t.Errorf("a valid mapping: %v", err)
	}
}

// lifecycleChecks are the lifecycle checks of rep by id.
func lifecycleChecks(rep *report.Report) map[string]report.Check {
	out := map[string]report.Check{}
	for _, c := range rep.Checks {
		if c.Group == report.CheckGroupLifecycle {
			out[c.ID] = c
		}
	}
	return out
}

func TestLifecycleStaleRead(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "lifecycle-stale", func(c *Config) { c.IncludeDestructive, c.Sequential = true, true })
	if rep.Lifecycle == nil || rep.Lifecycle.Groups != 3 {
		t.Fatalf("lifecycle = %+v, want 3 groups (note, project, task)", rep.Lifecycle)
	}
	checks := lifecycleChecks(rep)
	for id, want := range map[string]struct{ status, code string }{
		"lifecycle/note":         {report.CheckFail, report.CodeStaleRead},
		"lifecycle/project":      {report.CheckPass, ""},
		"lifecycle/task":         {report.CheckPass, ""},
		"lifecycle/project/task": {report.CheckFail, report.CodeOrphanReadable},
		"lifecycle/tag":          {report.CheckSkip, ""},
	} {
		c, ok := checks[id]
		if !ok || c.Status != want.status || c.Code != want.code {
			t.Errorf("%s = %+v (found %v), want %s %s", id, c, ok, want.status, want.code)
		}
	}
	if c := checks["lifecycle/note"]; !strings.Contains(c.Detail, `create_note made id "note-`) || len(c.Calls) != 4 {
		t.Errorf("lifecycle/note detail %q, %d calls; want the id and 4 calls", c.Detail, len(c.Calls))
	}
	if c := checks["lifecycle/project"]; !strings.Contains(c.Detail, "a UUID in the answer") {
		t.Errorf("lifecycle/project detail %q: want the id from a UUID", c.Detail)
	}
	f := findLifecycleFinding(rep, "lifecycle/note#stale_read")
	if f == nil || f.Severity != report.SeverityError || !strings.Contains(f.Reproducer.Shell, "delete_note") {
		t.Fatalf("stale_read finding = %+v; findings %v", f, rep.Findings)
	}
	if o := findLifecycleFinding(rep, "lifecycle/project/task#orphan_readable"); o == nil || o.Severity != report.SeverityInfo {
		t.Errorf("orphan finding = %+v", o)
	}
	// stale_read gates like any error finding when asked for; it is not a
	// crash and does not cap the grade.
	res := score.Check(rep, score.Gates{FailOn: []string{report.CodeStaleRead}})
	if res.Passed {
		t.Errorf("--fail-on stale_read passed: %+v", res)
	}
	for _, c := range rep.Caps {
		if strings.Contains(c.Reason, "lifecycle") {
			t.Errorf("a stale read capped the grade: %+v", c)
		}
	}
}

func findLifecycleFinding(rep *report.Report, id string) *report.Finding {
	for i := range rep.Findings {
		if rep.Findings[i].ID == id {
			return &rep.Findings[i]
		}
	}
	return nil
}

func TestLifecycleClean(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "lifecycle-clean", func(c *Config) { c.IncludeDestructive, c.Sequential = true, true })
	for id, c := range lifecycleChecks(rep) {
		want := report.CheckPass
		if id == "lifecycle/tag" {
			want = report.CheckSkip
		}
		if c.Status != want {
			t.Errorf("%s = %s (%s), want %s", id, c.Status, c.Detail, want)
		}
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "lifecycle/") {
			t.Errorf("clean twin has finding %+v", f)
		}
	}
}

// Entities of a knowledge graph, as the reference memory server has them:
// no tool name pairs open_nodes with create_entities, so by name the
// resource is skipped, saying the config can pair them; mapped, the
// stale store's read after the delete is found, the clean twin's not.
// create_entities makes only names that do not exist (the audit's valid
// call made the generated one already), and the name is short enough to
// sit inside "entities" of every open_nodes answer.
func TestLifecycleMappedGraph(t *testing.T) {
	parallel(t)
	graph := []LifecycleGroup{{Create: "create_entities", Read: "open_nodes", Delete: "delete_entities"}}
	run := func(name string, mapped []LifecycleGroup) map[string]report.Check {
		rep := runFixture(t, name, func(c *Config) {
			c.Command = append(c.Command, "--graph")
			c.IncludeDestructive, c.Sequential, c.Lifecycle = true, true, mapped
			c.Tools = []string{"*_entities", "open_nodes"}
		})
		return lifecycleChecks(rep)
	}
	if c := run("lifecycle-stale", nil)["lifecycle/entity"]; c.Status != report.CheckSkip || !strings.Contains(c.Detail, "not paired by name: open_nodes (config lifecycle can pair them)") {
		t.Errorf("unmapped entity check = %+v", c)
	}
	stale := run("lifecycle-stale", graph)["lifecycle/entity"]
	if stale.Status != report.CheckFail || stale.Code != report.CodeStaleRead || !strings.Contains(stale.Detail, "the name argument, echoed") && !strings.Contains(stale.Detail, "field name") {
		t.Errorf("mapped entity check on the stale store = %+v", stale)
	}
	if len(stale.Calls) != 4 || !strings.Contains(string(stale.Calls[0]), "-lc1") {
		t.Errorf("calls %s: want 4, the create with a fresh name", stale.Calls)
	}
	if clean := run("lifecycle-clean", graph)["lifecycle/entity"]; clean.Status != report.CheckPass {
		t.Errorf("mapped entity check on the clean store = %+v", clean)
	}
}

// Without --sequential nothing of it runs; it needs --include-destructive.
func TestLifecycleNeedsDestructive(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "lifecycle-stale", func(c *Config) { c.IncludeDestructive = true })
	if rep.Lifecycle != nil || len(lifecycleChecks(rep)) != 0 {
		t.Errorf("lifecycle ran without Sequential: %+v", rep.Lifecycle)
	}
	err := Config{Command: []string{"x"}, Sequential: true}.Validate()
	if err == nil || !strings.Contains(err.Error(), "Sequential") || !strings.Contains(err.Error(), "IncludeDestructive") {
		t.Errorf("Validate = %v, want Sequential needs IncludeDestructive", err)
	}
}

// A server with no resource to create says so plainly.
func TestLifecycleNoGroups(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "clean", func(c *Config) { c.IncludeDestructive, c.Sequential = true, true })
	if rep.Lifecycle == nil || rep.Lifecycle.Groups != 0 || !strings.HasPrefix(rep.Lifecycle.Summary, "0 groups detected") {
		t.Errorf("lifecycle = %+v, want 0 groups detected", rep.Lifecycle)
	}
}

// A create that answers an error skips the check with why (not a defect);
// a read that crashes fails it with the verdict's code, which caps the
// grade like any crash.
func TestLifecycleFailedSteps(t *testing.T) {
	parallel(t)
	stale := fixtureCommand(t, "lifecycle-stale")
	rep := runFixture(t, "lifecycle-stale", func(c *Config) {
		c.IncludeDestructive, c.Sequential = true, true
		c.Command = append(stale, "--refuse-create")
	})
	c := lifecycleChecks(rep)["lifecycle/note"]
	if c.Status != report.CheckSkip || !strings.Contains(c.Detail, "not run to the end: creating a note with create_note: errored (isError: the notebook is read-only today)") {
		t.Errorf("refused create: %+v", c)
	}
	if f := findLifecycleFinding(rep, "lifecycle/note#stale_read"); f != nil {
		t.Errorf("a refused create made a finding: %+v", f)
	}

	rep = runFixture(t, "lifecycle-stale", func(c *Config) {
		c.IncludeDestructive, c.Sequential = true, true
		c.Command = append(stale, "--crash-after-delete")
	})
	c = lifecycleChecks(rep)["lifecycle/note"]
	if c.Status != report.CheckFail || c.Code != string(report.Crash) || c.Crash == nil || c.Crash.How != report.CrashExit {
		t.Fatalf("crash on the read after delete: %+v", c)
	}
	if f := findLifecycleFinding(rep, "lifecycle/note#crash"); f == nil || f.Severity != report.SeverityCritical {
		t.Errorf("crash finding = %+v", f)
	}
	if len(rep.Caps) == 0 || rep.Caps[0].Grade != "D" || !strings.Contains(strings.Join(rep.Critical, "\n"), "the lifecycle checks") {
		t.Errorf("the crash did not cap the grade at D and raise the critical callout naming the lifecycle checks: %+v %q", rep.Caps, rep.Critical)
	}
}

func fixtureCommand(t *testing.T, name string) []string {
	t.Helper()
	return []string{fixture.Build(t, name)}
}
