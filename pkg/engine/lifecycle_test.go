package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestToolVerb(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		name string
		verb verb
		noun string
		ok   bool
	}{
		{"create_entity", verbCreate, "entity", true},
		{"createEntities", verbCreate, "entity", true},
		{"delete-item", verbDelete, "item", true},
		{"add_observations", verbCreate, "observation", true},
		{"open_nodes", verbRead, "node", true},
		{"read_graph", verbRead, "graph", true},
		{"get_note_by_id", verbRead, "note", true},
		{"note_create", verbCreate, "note", true},
		{"removeBoxes", verbDelete, "box", true},
		{"getUserProfile", verbRead, "user_profile", true},
		{"get_status", verbRead, "status", true},
		{"search_nodes", 0, "", false},
		{"create", 0, "", false},
		{"list_notes", 0, "", false},
	} {
		v, noun, ok := toolVerb(tc.name)
		if ok != tc.ok || (ok && (v != tc.verb || noun != tc.noun)) {
			t.Errorf("toolVerb(%q) = %v, %q, %v; want %v, %q, %v", tc.name, v, noun, ok, tc.verb, tc.noun, tc.ok)
		}
	}
}

func TestFindIDArg(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		schema, noun string
		want         idArg
		ok           bool
	}{
		{`{"properties":{"note_id":{"type":"string"},"verbose":{"type":"boolean"}}}`, "note", idArg{name: "note_id"}, true},
		{`{"properties":{"entityId":{"type":"integer"}}}`, "entity", idArg{name: "entityId", number: true}, true},
		{`{"properties":{"id":{"type":"string"},"name":{"type":"string"}}}`, "item", idArg{name: "id"}, true},
		{`{"properties":{"entityNames":{"type":"array","items":{"type":"string"}}}}`, "entity", idArg{name: "entityNames", array: true}, true},
		{`{"properties":{"query":{"type":"string"}}}`, "node", idArg{}, false},
		{`not json`, "x", idArg{}, false},
	} {
		got, ok := findIDArg(json.RawMessage(tc.schema), tc.noun)
		if ok != tc.ok || got != tc.want {
			t.Errorf("findIDArg(%s, %s) = %+v, %v; want %+v, %v", tc.schema, tc.noun, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFindID(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		text, structured string
		args             map[string]any
		want             string
	}{
		{`{"id":"note-1","title":"x"}`, "", nil, "note-1"},
		{`{"note_id":"n-9","id":"other","project_id":"p"}`, "", nil, "n-9"},
		{`{"note":{"id":7}}`, "", nil, "7"},
		{`[{"name":"alice","entityType":"person"}]`, "", nil, "alice"},
		{"text", `{"noteId":"s-1"}`, nil, "s-1"},
		{"Created project 6f1c2e0a-0000-4000-8000-000000000004.", "", nil, "6f1c2e0a-0000-4000-8000-000000000004"},
		{"Saved 'groceries'.", "", map[string]any{"title": "groceries"}, "groceries"},
		{"done", "", map[string]any{"title": "groceries"}, ""},
	} {
		id, _ := findID(tc.text, json.RawMessage(tc.structured), "note", tc.args)
		got := ""
		if id != nil {
			got = fmt.Sprint(id)
		}
		if got != tc.want {
			t.Errorf("findID(%q, %q) = %q, want %q", tc.text, tc.structured, got, tc.want)
		}
	}
}

func TestIDValue(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		id   any
		arg  idArg
		want string
	}{
		{"n-1", idArg{}, `"n-1"`},
		{"n-1", idArg{array: true}, `["n-1"]`},
		{json.Number("7"), idArg{}, `"7"`},
		{json.Number("7"), idArg{number: true}, `7`},
		{"7", idArg{number: true}, `7`},
	} {
		b, _ := json.Marshal(idValue(tc.id, tc.arg))
		if string(b) != tc.want {
			t.Errorf("idValue(%v, %+v) = %s, want %s", tc.id, tc.arg, b, tc.want)
		}
	}
}

// toolsNamed are tools with the given names and an input schema of one
// string property each names.
func toolsNamed(specs map[string]string) []tool {
	var out []tool
	for _, n := range slices.Sorted(maps.Keys(specs)) {
		out = append(out, tool{Name: n, InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string"}}}`, specs[n]))})
	}
	return out
}

func TestPlanLifecycle(t *testing.T) {
	parallel(t)
	none := func(tool) string { return "" }
	p := planLifecycle(toolsNamed(map[string]string{
		"create_note": "title", "get_note": "note_id", "delete_note": "note_id",
		"create_tag": "label", "add_tag": "label", "get_tag": "tag_id", "delete_tag": "tag_id",
		"createWidget": "name", "showWidget": "query", "removeWidget": "widgetId",
		"create_entities": "entities", "delete_entities": "entityNames", "open_nodes": "names",
		"get_weather": "city",
	}), none, nil)
	if len(p.groups) != 1 || p.groups[0].noun != "note" || p.groups[0].readArg.name != "note_id" {
		t.Fatalf("groups = %+v, want note alone", p.groups)
	}
	why := map[string]string{}
	for _, c := range p.skipped {
		why[c.ID] = c.Detail
	}
	for id, want := range map[string]string{
		"lifecycle/tag":    "ambiguous: 2 create tools for tag (add_tag, create_tag)",
		"lifecycle/widget": "no id argument found on showWidget",
		"lifecycle/entity": "no read tool for entity (found create_entities, delete_entities); read tools of other resources, not paired by name: open_nodes, get_weather",
	} {
		if !strings.Contains(why[id], want) {
			t.Errorf("%s: skipped %q, want it to say %q", id, why[id], want)
		}
	}
	if _, ok := why["lifecycle/weather"]; ok {
		t.Errorf("a read-only resource is a lifecycle candidate: %v", why)
	}
	if !strings.HasPrefix(p.summary, "1 group detected: note (create_note, get_note, delete_note)") {
		t.Errorf("summary = %q", p.summary)
	}

	// A skipped tool skips its group; nothing at all says 0 groups.
	p = planLifecycle(toolsNamed(map[string]string{"create_note": "title", "get_note": "note_id", "delete_note": "note_id"}),
		func(t tool) string {
			if t.Name == "delete_note" {
				return "skipped by --skip-tools delete_*"
			}
			return ""
		}, nil)
	if len(p.groups) != 0 || len(p.skipped) != 1 || !strings.Contains(p.skipped[0].Detail, "delete_note is not called: skipped by --skip-tools") {
		t.Errorf("plan with a skipped tool = %+v", p)
	}
	if !strings.HasPrefix(p.summary, "0 groups detected") {
		t.Errorf("summary = %q", p.summary)
	}
	p = planLifecycle(toolsNamed(map[string]string{"echo": "q", "get_time": "zone"}), none, nil)
	if p.summary != "0 groups detected: no tool name says create/add/insert/new or delete/remove/destroy a resource, so there is no lifecycle to check" {
		t.Errorf("summary = %q", p.summary)
	}
}

// The config's lifecycle groups pair tools whatever they are called, and
// leave their tools and resource out of the detection by name.
func TestPlanLifecycleMapped(t *testing.T) {
	parallel(t)
	none := func(tool) string { return "" }
	tools := toolsNamed(map[string]string{
		"create_entities": "entities", "delete_entities": "entityNames", "open_nodes": "names",
		"create_note": "title", "get_note": "note_id", "delete_note": "note_id",
		"add_widget": "name", "lookup": "key", "drop": "key",
	})
	p := planLifecycle(tools, none, []LifecycleGroup{
		{Create: "create_entities", Read: "open_nodes", Delete: "delete_entities"},
		{Resource: "Gadget Thing", Create: "add_widget", Read: "lookup", Delete: "drop", ReadArg: "key", DeleteArg: "nope"},
	})
	groups := map[string]*lcGroup{}
	for _, g := range p.groups {
		groups[g.noun] = g
	}
	e := groups["entity"]
	if e == nil || !e.mapped || e.read.Name != "open_nodes" || e.readArg != (idArg{name: "names"}) || e.deleteArg.name != "entityNames" {
		t.Fatalf("entity group = %+v; groups %v", e, groups)
	}
	if n := groups["note"]; n == nil || n.mapped {
		t.Errorf("note group (by name) = %+v", n)
	}
	if len(p.groups) != 2 || len(p.skipped) != 1 || p.skipped[0].ID != "lifecycle/gadget_thing" ||
		p.skipped[0].Detail != "drop has no argument nope (config lifecycle)" {
		t.Errorf("groups %d, skipped %+v; want entity and note, gadget_thing skipped for its delete argument", len(p.groups), p.skipped)
	}
	if !strings.Contains(p.summary, "entity (create_entities, open_nodes, delete_entities; mapped by the config)") {
		t.Errorf("summary = %q", p.summary)
	}
	// A mapped tool the server does not list skips its group, saying so.
	p = planLifecycle(tools, none, []LifecycleGroup{{Resource: "entity", Create: "create_entities", Read: "read_graph", Delete: "delete_entities"}})
	if len(p.skipped) != 2 || p.skipped[0].ID != "lifecycle/entity" || p.skipped[0].Detail != "the server lists no tool read_graph (config lifecycle)" ||
		!strings.HasPrefix(p.summary, "1 group detected: note") {
		t.Errorf("plan = %+v", p)
	}
}

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

func TestMentions(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		text string
		id   any
		want bool
	}{
		{`{"entities":[],"relations":[]}`, "e", false},
		{`{"entities":[{"name":"e"}]}`, "e", true},
		{`note-12 and note-1`, "note-1", true},
		{`note-12`, "note-1", false},
		{`x_note-1`, "note-1", false},
		{`id: 42.`, json.Number("42"), true},
		{`4242`, json.Number("42"), false},
		{`ok`, "", false},
	} {
		if got := mentions(tc.text, tc.id); got != tc.want {
			t.Errorf("mentions(%q, %v) = %v, want %v", tc.text, tc.id, got, tc.want)
		}
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

// An id the server makes up is shown cut: it is the server's text.
func TestIDTextBounded(t *testing.T) {
	parallel(t)
	if got := idText("note-1"); got != `id "note-1"` {
		t.Errorf("idText(note-1) = %s", got)
	}
	if got := idText(strings.Repeat("x", 10000)); len(got) > 100 {
		t.Errorf("idText of a 10000-byte id is %d bytes", len(got))
	}
}
