package lifecycle

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

func TestToolVerb(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// toolsNamed are tools with the given names and an input schema of one
// string property each names.
func toolsNamed(specs map[string]string) []mcptool.Tool {
	var out []mcptool.Tool
	for _, n := range slices.Sorted(maps.Keys(specs)) {
		out = append(out, mcptool.Tool{Name: n, InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string"}}}`, specs[n]))})
	}
	return out
}

func TestNewPlan(t *testing.T) {
	t.Parallel()
	none := func(mcptool.Tool) string { return "" }
	p := NewPlan(toolsNamed(map[string]string{
		"create_note": "title", "get_note": "note_id", "delete_note": "note_id",
		"create_tag": "label", "add_tag": "label", "get_tag": "tag_id", "delete_tag": "tag_id",
		"createWidget": "name", "showWidget": "query", "removeWidget": "widgetId",
		"create_entities": "entities", "delete_entities": "entityNames", "open_nodes": "names",
		"get_weather": "city",
	}), none, nil)
	if len(p.Groups) != 1 || p.Groups[0].noun != "note" || p.Groups[0].readArg.name != "note_id" {
		t.Fatalf("groups = %+v, want note alone", p.Groups)
	}
	why := map[string]string{}
	for _, c := range p.Skipped {
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
	if !strings.HasPrefix(p.Summary, "1 group detected: note (create_note, get_note, delete_note)") {
		t.Errorf("summary = %q", p.Summary)
	}

	// A skipped tool skips its group; nothing at all says 0 groups.
	p = NewPlan(toolsNamed(map[string]string{"create_note": "title", "get_note": "note_id", "delete_note": "note_id"}),
		func(t mcptool.Tool) string {
			if t.Name == "delete_note" {
				return "skipped by --skip-tools delete_*"
			}
			return ""
		}, nil)
	if len(p.Groups) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Detail, "delete_note is not called: skipped by --skip-tools") {
		t.Errorf("plan with a skipped tool = %+v", p)
	}
	if !strings.HasPrefix(p.Summary, "0 groups detected") {
		t.Errorf("summary = %q", p.Summary)
	}
	p = NewPlan(toolsNamed(map[string]string{"echo": "q", "get_time": "zone"}), none, nil)
	if p.Summary != "0 groups detected: no tool name says create/add/insert/new or delete/remove/destroy a resource, so there is no lifecycle to check" {
		t.Errorf("summary = %q", p.Summary)
	}
}

// The config's lifecycle groups pair tools whatever they are called, and
// leave their tools and resource out of the detection by name.
func TestNewPlanMapped(t *testing.T) {
	t.Parallel()
	none := func(mcptool.Tool) string { return "" }
	tools := toolsNamed(map[string]string{
		"create_entities": "entities", "delete_entities": "entityNames", "open_nodes": "names",
		"create_note": "title", "get_note": "note_id", "delete_note": "note_id",
		"add_widget": "name", "lookup": "key", "drop": "key",
	})
	p := NewPlan(tools, none, []Mapping{
		{Create: "create_entities", Read: "open_nodes", Delete: "delete_entities"},
		{Resource: "Gadget Thing", Create: "add_widget", Read: "lookup", Delete: "drop", ReadArg: "key", DeleteArg: "nope"},
	})
	groups := map[string]*Group{}
	for _, g := range p.Groups {
		groups[g.noun] = g
	}
	e := groups["entity"]
	if e == nil || !e.mapped || e.read.Name != "open_nodes" || e.readArg != (idArg{name: "names"}) || e.deleteArg.name != "entityNames" {
		t.Fatalf("entity group = %+v; groups %v", e, groups)
	}
	if n := groups["note"]; n == nil || n.mapped {
		t.Errorf("note group (by name) = %+v", n)
	}
	if len(p.Groups) != 2 || len(p.Skipped) != 1 || p.Skipped[0].ID != "lifecycle/gadget_thing" ||
		p.Skipped[0].Detail != "drop has no argument nope (config lifecycle)" {
		t.Errorf("groups %d, skipped %+v; want entity and note, gadget_thing skipped for its delete argument", len(p.Groups), p.Skipped)
	}
	if !strings.Contains(p.Summary, "entity (create_entities, open_nodes, delete_entities; mapped by the config)") {
		t.Errorf("summary = %q", p.Summary)
	}
	// A mapped tool the server does not list skips its group, saying so.
	p = NewPlan(tools, none, []Mapping{{Resource: "entity", Create: "create_entities", Read: "read_graph", Delete: "delete_entities"}})
	if len(p.Skipped) != 2 || p.Skipped[0].ID != "lifecycle/entity" || p.Skipped[0].Detail != "the server lists no tool read_graph (config lifecycle)" ||
		!strings.HasPrefix(p.Summary, "1 group detected: note") {
		t.Errorf("plan = %+v", p)
	}
}

// A server listing many create tools without a read tool, and many read
// tools of other resources: each skipped group's detail named every one
// of those read tools, so the report grew with groups × read tools
// (2,000 of each: 2,000 details of 2,000 names). It grows with the tools
// now.
func TestNewPlanDetailsBounded(t *testing.T) {
	t.Parallel()
	const n = 2000
	specs := map[string]string{}
	for i := range n {
		specs[fmt.Sprintf("create_alpha%d", i)] = "title"
		specs[fmt.Sprintf("get_beta%d", i)] = "beta_id"
	}
	p := NewPlan(toolsNamed(specs), func(mcptool.Tool) string { return "" }, nil)
	total := 0
	for _, c := range p.Skipped {
		total += len(c.Detail)
	}
	if len(p.Skipped) != n {
		t.Fatalf("%d groups skipped, want %d", len(p.Skipped), n)
	}
	if total > n*1024 {
		t.Errorf("the skipped groups' details are %d bytes in all for %d tools: not bounded by the tools listed", total, 2*n)
	}
	if d := p.Skipped[0].Detail; !strings.Contains(d, "and 1992 more") {
		t.Errorf("detail %q does not say how many read tools were left unnamed", textcut.Excerpt(d, 300))
	}
}
