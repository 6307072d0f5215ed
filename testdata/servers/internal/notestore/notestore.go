// Package notestore is the server of the lifecycle fixtures (--sequential):
// notes, projects and their tasks, and tags, created, read and deleted
// through tools, kept in memory.
//
//   - create_note/get_note/delete_note: a note resource, id in a JSON field
//     "id" of the answer. The stale store's get_note still answers a deleted
//     note (a stale read).
//
//   - create_project/get_project/delete_project, create_task (project_id)/
//     get_task/delete_task: a parent and its children; the project's id is
//     a bare UUID in the answer's text, a task's the JSON field task_id.
//     The stale store keeps a deleted project's tasks; the clean one deletes
//     them with it.
//
//   - create_tag and add_tag, get_tag, delete_tag: two create tools for one
//     resource (an ambiguous group, never checked).
//
//   - with --graph, create_entities/open_nodes/delete_entities: entities of
//     a knowledge graph, as the reference memory server has them: names
//     that no tool name pairs (the config's lifecycle mapping does), made
//     from a list of {name} objects (a name that exists already is not
//     made again and not in the answer), read and deleted by lists of
//     names; open_nodes answers {"entities": [...]} of the names found,
//     and the stale store still finds deleted ones.
//
// Flags: --refuse-create makes create_note answer isError (a check that
// cannot start, and says why); --crash-after-delete makes get_note exit the
// process when it is asked for a deleted note (a crash during the checks).
package notestore

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// store is the server's state.
type store struct {
	mu    sync.Mutex
	stale bool
	// refuseCreate and crashAfterDelete are the flags of the package doc.
	refuseCreate, crashAfterDelete bool
	next                           int
	notes                          map[string]string // id -> title
	// deleted notes, still read by a stale store
	deleted  map[string]string
	projects map[string]string // id -> name
	tasks    map[string]string // id -> project id
	// graph: the --graph tools are listed; entities are their names,
	// gone the deleted ones (read by a stale store).
	graph          bool
	entities, gone map[string]bool
}

// Main serves the store over stdio; stale selects the flawed one.
func Main(name string, stale bool) {
	st := &store{stale: stale, refuseCreate: slices.Contains(os.Args[1:], "--refuse-create"),
		crashAfterDelete: slices.Contains(os.Args[1:], "--crash-after-delete"), notes: map[string]string{}, deleted: map[string]string{}, projects: map[string]string{}, tasks: map[string]string{},
		graph: slices.Contains(os.Args[1:], "--graph"), entities: map[string]bool{}, gone: map[string]bool{}}
	rawserver.Main(&rawserver.Server{
		Name:    name,
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				if st.graph {
					return map[string]any{"tools": append(tools(), graphTools()...)}, nil
				}
				return map[string]any{"tools": tools()}, nil
			},
			"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				return st.call(p)
			},
		},
	})
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func schema(required string, props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": []string{required}, "additionalProperties": false}
}

// writer is a tool that changes the store: not read-only.
func writer(name, desc string, in map[string]any) map[string]any {
	return map[string]any{"name": name, "description": desc, "inputSchema": in,
		"annotations": map[string]any{"readOnlyHint": false, "destructiveHint": true}}
}

func tools() []any {
	return []any{
		writer("create_note", "Create a note with a title; answers its id.", schema("title", map[string]any{"title": str("The note's title.")})),
		rawserver.Tool("get_note", "Read one note by its id.", schema("note_id", map[string]any{"note_id": str("The note's id.")})),
		writer("delete_note", "Delete one note by its id.", schema("note_id", map[string]any{"note_id": str("The note's id.")})),
		writer("create_project", "Create a project; answers its UUID.", schema("name", map[string]any{"name": str("The project's name.")})),
		rawserver.Tool("get_project", "Read one project by its id.", schema("project_id", map[string]any{"project_id": str("The project's id.")})),
		writer("delete_project", "Delete one project by its id.", schema("project_id", map[string]any{"project_id": str("The project's id.")})),
		writer("create_task", "Create a task in a project.", map[string]any{"type": "object", "required": []string{"project_id", "title"}, "additionalProperties": false,
			"properties": map[string]any{"project_id": str("The project's id."), "title": str("The task's title.")}}),
		rawserver.Tool("get_task", "Read one task by its id.", schema("task_id", map[string]any{"task_id": str("The task's id.")})),
		writer("delete_task", "Delete one task by its id.", schema("task_id", map[string]any{"task_id": str("The task's id.")})),
		writer("create_tag", "Create a tag.", schema("label", map[string]any{"label": str("The tag's label.")})),
		writer("add_tag", "Add a tag (the same as create_tag).", schema("label", map[string]any{"label": str("The tag's label.")})),
		rawserver.Tool("get_tag", "Read one tag by its id.", schema("tag_id", map[string]any{"tag_id": str("The tag's id.")})),
		writer("delete_tag", "Delete one tag by its id.", schema("tag_id", map[string]any{"tag_id": str("The tag's id.")})),
	}
}

// graphTools are the --graph tools, with the reference memory server's
// names and argument shapes.
func graphTools() []any {
	names := func(key string) map[string]any {
		return schema(key, map[string]any{key: map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1}})
	}
	entity := map[string]any{"type": "object", "required": []string{"name"}, "additionalProperties": false,
		"properties": map[string]any{"name": map[string]any{"type": "string", "minLength": 1}}}
	return []any{
		writer("create_entities", "Create entities of the graph; answers those that did not exist.",
			schema("entities", map[string]any{"entities": map[string]any{"type": "array", "items": entity, "minItems": 1}})),
		rawserver.Tool("open_nodes", "Read entities by name.", names("names")),
		writer("delete_entities", "Delete entities by name.", names("entityNames")),
	}
}

// graphCall serves the --graph tools; ok is false for another tool.
func (st *store) graphCall(name string, args map[string]any) (result any, ok bool) {
	list := func(key string) ([]string, bool) {
		items, _ := args[key].([]any)
		var out []string
		for _, it := range items {
			if m, isObj := it.(map[string]any); isObj && key == "entities" {
				it = m["name"]
			}
			if s, _ := it.(string); s != "" {
				out = append(out, s)
			}
		}
		return out, len(out) > 0 && len(out) == len(items) && len(args) == 1
	}
	switch name {
	case "create_entities":
		ns, valid := list("entities")
		if !valid {
			return toolError("want entities: a list of {name}"), true
		}
		made := []any{}
		for _, n := range ns {
			if !st.entities[n] {
				st.entities[n] = true
				delete(st.gone, n)
				made = append(made, map[string]any{"name": n})
			}
		}
		return asJSON(made), true
	case "open_nodes":
		ns, valid := list("names")
		if !valid {
			return toolError("want names: a list of strings"), true
		}
		found := []any{}
		for _, n := range ns {
			if st.entities[n] || st.stale && st.gone[n] {
				found = append(found, map[string]any{"name": n})
			}
		}
		return asJSON(map[string]any{"entities": found, "relations": []any{}}), true
	case "delete_entities":
		ns, valid := list("entityNames")
		if !valid {
			return toolError("want entityNames: a list of strings"), true
		}
		for _, n := range ns {
			if st.entities[n] {
				delete(st.entities, n)
				st.gone[n] = true
			}
		}
		return rawserver.Text("Entities deleted successfully"), true
	}
	return nil, false
}

func toolError(format string, args ...any) map[string]any {
	return rawserver.ErrorText(fmt.Sprintf(format, args...))
}

func asJSON(v any) map[string]any {
	b, _ := json.Marshal(v)
	return rawserver.Text(string(b))
}

func (st *store) call(p *rawserver.CallParams) (any, error) {
	var args map[string]any
	if json.Unmarshal(p.Arguments, &args) != nil || args == nil {
		return toolError("arguments must be an object"), nil
	}
	arg := func(k string) (string, bool) {
		s, ok := args[k].(string)
		return s, ok && s != ""
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.graph {
		if r, ok := st.graphCall(p.Name, args); ok {
			return r, nil
		}
	}
	switch p.Name {
	case "create_note":
		title, ok := arg("title")
		if !ok || len(args) != 1 {
			return toolError("want one string title"), nil
		}
		if st.refuseCreate {
			return toolError("the notebook is read-only today"), nil
		}
		st.next++
		id := fmt.Sprintf("note-%d", st.next)
		st.notes[id] = title
		return asJSON(map[string]any{"id": id, "title": title}), nil
	case "get_note":
		id, ok := arg("note_id")
		if !ok || len(args) != 1 {
			return toolError("want one string note_id"), nil
		}
		if t, ok := st.notes[id]; ok {
			return asJSON(map[string]any{"id": id, "title": t}), nil
		}
		if _, ok := st.deleted[id]; ok && st.crashAfterDelete {
			fmt.Fprintln(os.Stderr, "get_note: deleted note, exiting")
			os.Exit(3)
		}
		if t, ok := st.deleted[id]; ok && st.stale {
			return asJSON(map[string]any{"id": id, "title": t}), nil
		}
		return toolError("no note %q", id), nil
	case "delete_note":
		id, ok := arg("note_id")
		if !ok || len(args) != 1 {
			return toolError("want one string note_id"), nil
		}
		t, found := st.notes[id]
		if !found {
			return toolError("no note %q", id), nil
		}
		delete(st.notes, id)
		st.deleted[id] = t
		return rawserver.Text("deleted " + id), nil
	case "create_project":
		name, ok := arg("name")
		if !ok || len(args) != 1 {
			return toolError("want one string name"), nil
		}
		st.next++
		id := fmt.Sprintf("6f1c2e0a-0000-4000-8000-%012d", st.next)
		st.projects[id] = name
		return rawserver.Text("Created project " + id), nil
	case "get_project", "delete_project":
		id, ok := arg("project_id")
		if !ok || len(args) != 1 {
			return toolError("want one string project_id"), nil
		}
		name, found := st.projects[id]
		if !found {
			return toolError("no project %q", id), nil
		}
		if p.Name == "get_project" {
			return rawserver.Text(fmt.Sprintf("project %s: %s", id, name)), nil
		}
		delete(st.projects, id)
		if !st.stale {
			for t, proj := range st.tasks {
				if proj == id {
					delete(st.tasks, t)
				}
			}
		}
		return rawserver.Text("deleted " + id), nil
	case "create_task":
		proj, ok := arg("project_id")
		_, titled := arg("title")
		if !ok || !titled || len(args) != 2 {
			return toolError("want string project_id and title"), nil
		}
		if _, found := st.projects[proj]; !found {
			return toolError("no project %q", proj), nil
		}
		st.next++
		id := fmt.Sprintf("task-%d", st.next)
		st.tasks[id] = proj
		return asJSON(map[string]any{"task_id": id, "project_id": proj}), nil
	case "get_task", "delete_task":
		id, ok := arg("task_id")
		if !ok || len(args) != 1 {
			return toolError("want one string task_id"), nil
		}
		proj, found := st.tasks[id]
		if !found {
			return toolError("no task %q", id), nil
		}
		if p.Name == "get_task" {
			return asJSON(map[string]any{"task_id": id, "project_id": proj}), nil
		}
		delete(st.tasks, id)
		return rawserver.Text("deleted " + id), nil
	case "create_tag", "add_tag":
		if _, ok := arg("label"); !ok {
			return toolError("want one string label"), nil
		}
		st.next++
		return asJSON(map[string]any{"id": fmt.Sprintf("tag-%d", st.next)}), nil
	case "get_tag", "delete_tag":
		return toolError("no such tag"), nil
	}
	return nil, rawserver.UnknownTool(p.Name)
}
