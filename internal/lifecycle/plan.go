// Package lifecycle holds the lifecycle checks (--sequential,
// docs/BEHAVIOUR.md#checks-beyond-single-calls): they group a server's
// tools by the resource their names speak of (or as the config maps
// them), and, for each resource with one create, one read and one delete
// tool, create one, read it, delete it and read it again.
//
// [NewPlan] is the plan (pure: names and schemas in, groups out);
// [Plan.Run] runs it on the audit's live session through a [Caller].
package lifecycle

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// verb is what a tool does to its resource.
type verb int

const (
	verbCreate verb = iota
	verbRead
	verbDelete
)

func (v verb) String() string { return [...]string{"create", "read", "delete"}[v] }

// verbWords are the words of a tool name that say its verb.
var verbWords = map[string]verb{
	"create": verbCreate, "add": verbCreate, "insert": verbCreate, "new": verbCreate,
	"get": verbRead, "read": verbRead, "fetch": verbRead, "retrieve": verbRead,
	"describe": verbRead, "show": verbRead, "open": verbRead,
	"delete": verbDelete, "remove": verbDelete, "destroy": verbDelete,
}

// singular is w without a plural ending: entities → entity, boxes → box,
// notes → note; words in -ss, -us and -is stay.
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// toolVerb reads a tool name as a verb and the resource noun it acts on:
// create_note, createNotes and notes-create are all (create, "note");
// get_note_by_id is (read, "note"). ok is false when no word is a verb or
// no word names a resource.
func toolVerb(name string) (v verb, noun string, ok bool) {
	ws := words.Split(name)
	at := slices.IndexFunc(ws, func(w string) bool { _, ok := verbWords[w]; return ok })
	if at < 0 {
		return 0, "", false
	}
	v = verbWords[ws[at]]
	rest := ws[at+1:]
	if len(rest) == 0 {
		rest = ws[:at] // note_create
	}
	if i := slices.Index(rest, "by"); i >= 0 {
		rest = rest[:i] // get_note_by_id
	}
	if len(rest) == 0 {
		return 0, "", false
	}
	rest = slices.Clone(rest)
	rest[len(rest)-1] = singular(rest[len(rest)-1])
	return v, strings.Join(rest, "_"), true
}

// normKey is a property name compared loosely: lower case, without _, -
// and spaces ("entity_id", "entityId" and "entity-id" are one).
func normKey(k string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' || r == '.' {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// idArg is the argument of a read or delete tool that names the resource.
type idArg struct {
	name  string
	array bool // a list of ids (entityNames: ["x"])
	// number: the id is a number in the schema, so a numeric id goes as
	// one.
	number bool
}

// properties are the top-level properties of a tool's input schema, by
// name: their JSON type ("string", "array", "integer", ...; "" unknown).
func properties(schema json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := map[string]string{}
	for k, raw := range s.Properties {
		var p struct {
			Type any `json:"type"`
		}
		_ = json.Unmarshal(raw, &p)
		t, _ := p.Type.(string)
		if ts, ok := p.Type.([]any); ok && len(ts) > 0 {
			t, _ = ts[0].(string)
		}
		out[k] = t
	}
	return out
}

// findIDArg finds the argument of a read or delete tool of noun that takes
// its id: by preference id, NOUN_id (NounId), then their lists, then name,
// NOUN_name and their lists. ok is false when there is none.
func findIDArg(schema json.RawMessage, noun string) (idArg, bool) {
	props := properties(schema)
	n := normKey(noun)
	byNorm := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if _, seen := byNorm[normKey(k)]; !seen {
			byNorm[normKey(k)] = k
		}
	}
	for _, want := range []string{n + "id", "id", n + "ids", "ids", n + "name", "name", n + "names", "names"} {
		if k, ok := byNorm[want]; ok {
			t := props[k]
			return idArg{name: k, array: t == "array", number: t == "integer" || t == "number"}, true
		}
	}
	return idArg{}, false
}

// Group is one resource whose lifecycle can be checked.
type Group struct {
	noun                 string
	create, read, delete mcptool.Tool
	readArg, deleteArg   idArg
	// parent is the group of the resource this one's create tool takes
	// the id of (parentArg: "project_id" on create_task), nil when none.
	parent    *Group
	parentArg string
	// mapped: the user named the tools (config lifecycle).
	mapped bool
}

// complete finds g's id arguments (readArg and deleteArg when given, else
// as [findIDArg] does) and returns why g cannot be checked, if it cannot.
func (g *Group) complete(skip func(mcptool.Tool) string, readArg, deleteArg string) []string {
	var why []string
	for _, t := range []mcptool.Tool{g.create, g.read, g.delete} {
		if r := skip(t); r != "" {
			why = append(why, t.Name+" is not called: "+r)
		}
	}
	for _, a := range []struct {
		t     mcptool.Tool
		given string
		dst   *idArg
	}{{g.read, readArg, &g.readArg}, {g.delete, deleteArg, &g.deleteArg}} {
		if a.given == "" {
			var ok bool
			if *a.dst, ok = findIDArg(a.t.InputSchema, g.noun); !ok {
				why = append(why, fmt.Sprintf("no id argument found on %s (id, %s_id, name, ...)", a.t.Name, g.noun))
			}
			continue
		}
		typ, ok := properties(a.t.InputSchema)[a.given]
		if !ok {
			why = append(why, fmt.Sprintf("%s has no argument %s", a.t.Name, textcut.Excerpt(a.given, 64)))
			continue
		}
		*a.dst = idArg{name: a.given, array: typ == "array", number: typ == "integer" || typ == "number"}
	}
	return why
}

// Plan is what the lifecycle checks will do.
type Plan struct {
	// Groups are the resources whose lifecycle is checked.
	Groups []*Group
	// Skipped are the checks of resources that cannot be checked, with
	// why (two create tools, no read tool, no id argument, ...).
	Skipped []report.Check
	// Summary says what was detected, for the report's lifecycle section.
	Summary string
}

// maxOtherReads bounds the read tools of other resources a skipped
// group's detail names.
const maxOtherReads = 8

// Mapping is one resource whose create, read and delete tools the user
// named (the config's lifecycle) rather than found by name: the engine's
// LifecycleGroup, field for field.
type Mapping struct {
	// Resource is the noun of the check's id; "" reads it from Create's
	// name (see [Mapping.Noun]).
	Resource             string
	Create, Read, Delete string
	// ReadArg and DeleteArg name the id argument of Read and Delete; ""
	// finds it as for a detected group.
	ReadArg, DeleteArg string
}

// Noun is the resource as check ids name it: Resource's words joined with
// "_", else what detection reads in Create's name, else Create's words.
func (m Mapping) Noun() string {
	if m.Resource != "" {
		return strings.Join(words.Split(m.Resource), "_")
	}
	if _, n, ok := toolVerb(m.Create); ok {
		return n
	}
	return strings.Join(words.Split(m.Create), "_")
}

// NewPlan groups tools by resource: first the groups of mapped (the
// user's), then by the names of the tools no mapped group holds. skip
// says why a tool is not called ("" when it is): a group with such a tool
// is skipped.
func NewPlan(tools []mcptool.Tool, skip func(mcptool.Tool) string, mapped []Mapping) Plan {
	var p Plan
	byName := map[string]mcptool.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	skipCheck := func(noun, why string) {
		p.Skipped = append(p.Skipped, report.Check{
			ID: report.CheckGroupLifecycle + "/" + noun, Group: report.CheckGroupLifecycle,
			Title:  lifecycleTitle(noun),
			Status: report.CheckSkip, Detail: why,
		})
	}
	taken := map[string]bool{}     // tools of mapped groups
	takenNoun := map[string]bool{} // their resources
	mappedGroups := 0
	for _, m := range mapped {
		noun := m.Noun()
		takenNoun[noun] = true
		var why []string
		for _, n := range []string{m.Create, m.Read, m.Delete} {
			taken[n] = true
			if _, ok := byName[n]; !ok {
				why = append(why, "the server lists no tool "+n)
			}
		}
		if len(why) == 0 {
			g := &Group{noun: noun, create: byName[m.Create], read: byName[m.Read], delete: byName[m.Delete], mapped: true}
			if why = g.complete(skip, m.ReadArg, m.DeleteArg); len(why) == 0 {
				p.Groups = append(p.Groups, g)
				mappedGroups++
				continue
			}
		}
		skipCheck(noun, strings.Join(why, "; ")+" (config lifecycle)")
	}

	type verbs [3][]mcptool.Tool
	byNoun := map[string]*verbs{}
	for _, t := range tools {
		v, noun, ok := toolVerb(t.Name)
		if !ok || taken[t.Name] || takenNoun[noun] {
			continue
		}
		if byNoun[noun] == nil {
			byNoun[noun] = &verbs{}
		}
		byNoun[noun][v] = append(byNoun[noun][v], t)
	}
	nouns := slices.Sorted(maps.Keys(byNoun))
	names := func(ts []mcptool.Tool) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.Name)
		}
		return strings.Join(s, ", ")
	}
	// Read tools of resources nothing creates or deletes (open_nodes next
	// to create_entities): named when a resource lacks a read tool, since
	// the user may know they read it.
	var otherReads []string
	for _, noun := range nouns {
		if vs := byNoun[noun]; len(vs[verbCreate]) == 0 && len(vs[verbDelete]) == 0 {
			otherReads = append(otherReads, names(vs[verbRead]))
		}
	}
	candidates := 0
	for _, noun := range nouns {
		vs := byNoun[noun]
		if len(vs[verbCreate]) == 0 && len(vs[verbDelete]) == 0 {
			continue // only read tools: no lifecycle to speak of
		}
		candidates++
		var why []string
		for _, v := range []verb{verbCreate, verbRead, verbDelete} {
			switch ts := vs[v]; {
			case len(ts) == 0:
				var have []string
				for _, w := range []verb{verbCreate, verbRead, verbDelete} {
					if len(vs[w]) > 0 {
						have = append(have, names(vs[w]))
					}
				}
				why = append(why, fmt.Sprintf("no %s tool for %s (found %s)", v, noun, strings.Join(have, ", ")))
			case len(ts) > 1:
				why = append(why, fmt.Sprintf("ambiguous: %d %s tools for %s (%s)", len(ts), v, noun, names(ts)))
			}
		}
		if len(why) > 0 {
			if len(vs[verbRead]) == 0 && len(otherReads) > 0 {
				// Named in every such group's detail: a few, so that the
				// details do not grow with groups × read tools.
				shown := otherReads[:min(len(otherReads), maxOtherReads)]
				more := ""
				if n := len(otherReads) - len(shown); n > 0 {
					more = fmt.Sprintf(" and %d more", n)
				}
				why = append(why, "read tools of other resources, not paired by name: "+strings.Join(shown, ", ")+more+" (config lifecycle can pair them)")
			}
			skipCheck(noun, strings.Join(why, "; "))
			continue
		}
		g := &Group{noun: noun, create: vs[verbCreate][0], read: vs[verbRead][0], delete: vs[verbDelete][0]}
		if why := g.complete(skip, "", ""); len(why) > 0 {
			skipCheck(noun, strings.Join(why, "; "))
			continue
		}
		p.Groups = append(p.Groups, g)
	}
	// A create tool that takes the id of another group's resource
	// (create_task's project_id) makes that group its parent.
	for _, g := range p.Groups {
		props := properties(g.create.InputSchema)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			for _, o := range p.Groups {
				if o != g && (normKey(k) == normKey(o.noun)+"id") && g.parent == nil {
					g.parent, g.parentArg = o, k
				}
			}
		}
	}
	var listed []string
	for _, g := range p.Groups {
		s := fmt.Sprintf("%s (%s, %s, %s", g.noun, g.create.Name, g.read.Name, g.delete.Name)
		if g.mapped {
			s += "; mapped by the config"
		}
		if g.parent != nil {
			s += "; child of " + g.parent.noun + " by " + g.parentArg
		}
		listed = append(listed, s+")")
	}
	switch {
	case len(p.Groups) > 0:
		p.Summary = fmt.Sprintf("%s detected: %s", words.Plural(len(p.Groups), "group", "groups"), strings.Join(listed, "; "))
		if len(p.Skipped) > 0 {
			p.Summary += fmt.Sprintf("; %d skipped (see the lifecycle checks)", len(p.Skipped))
		}
	case mappedGroups < len(mapped):
		p.Summary = fmt.Sprintf("0 groups detected: %s of the config could not be checked (see the skipped lifecycle checks)", words.Plural(len(mapped)-mappedGroups, "mapped group", "mapped groups"))
	case candidates > 0:
		p.Summary = fmt.Sprintf("0 groups detected: %s a create or delete tool, but none has exactly one create, one read and one delete tool with an id argument (see the skipped lifecycle checks)", words.Plural(candidates, "resource has", "resources have"))
	default:
		p.Summary = "0 groups detected: no tool name says create/add/insert/new or delete/remove/destroy a resource, so there is no lifecycle to check"
	}
	return p
}

// lifecycleTitle is the title of the check of noun's lifecycle.
func lifecycleTitle(noun string) string {
	return withArticle(noun) + " is no longer readable once deleted"
}

// withArticle is noun after "a", or "an" before a vowel: an entity, a note.
func withArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
