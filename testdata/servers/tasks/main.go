// Command tasks is a raw fixture server with one task-only tool, research
// (execution.taskSupport: "required"), run as MCP 2025-11-25 tasks: a
// tools/call carrying "task" is answered with a CreateTaskResult, tasks/get
// reports the task's status and tasks/result its CallToolResult. -mode
// picks how it behaves:
//
//   - clean: it validates the input (-32602 for anything but a string q)
//     and completes each task a few hundred milliseconds later;
//   - lax: it accepts any input and completes the task;
//   - stuck: its tasks stay "working" forever;
//   - crash: it exits on tasks/result;
//   - malformed: it answers the task-augmented call with a plain
//     CallToolResult, no task;
//   - long-id: as clean, with taskIds of about 1.4 KiB (opaque state
//     encoded into the id, as a stateless server may do: the specification
//     bounds no taskId).
//
// A plain tools/call is refused with -32601, as a task-only tool should.
package main

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

type task struct {
	created time.Time
	result  map[string]any
}

var (
	mode  = flag.String("mode", "clean", "clean, lax, stuck, crash, malformed or long-id")
	mu    sync.Mutex
	tasks = map[string]*task{}
	next  int
)

const workFor = 300 * time.Millisecond

func status(t *task) string {
	if *mode == "stuck" || time.Since(t.created) < workFor {
		return "working"
	}
	return "completed"
}

func object(id string, t *task) map[string]any {
	return map[string]any{
		"taskId": id, "status": status(t), "pollInterval": 100, "ttl": 60000,
		"createdAt": t.created.UTC().Format(time.RFC3339), "lastUpdatedAt": time.Now().UTC().Format(time.RFC3339),
	}
}

func call(_ *rawserver.Server, req *rawserver.Request) (any, error) {
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	if p.Name != "research" {
		return nil, rawserver.UnknownTool(p.Name)
	}
	if p.Task == nil {
		return nil, &rawserver.Error{Code: -32601, Message: "task augmentation required: call research as a task"}
	}
	var args struct {
		Q *string `json:"q"`
	}
	if *mode != "lax" && (json.Unmarshal(p.Arguments, &args) != nil || args.Q == nil) {
		return nil, &rawserver.Error{Code: -32602, Message: `invalid arguments: "q" is required and must be a string`}
	}
	text := "research done"
	if args.Q != nil {
		text = "research on " + fmt.Sprintf("%.40q", *args.Q) + " done"
	}
	if *mode == "malformed" {
		return rawserver.Text(text), nil
	}
	mu.Lock()
	defer mu.Unlock()
	next++
	id := fmt.Sprintf("task-%d", next)
	if *mode == "long-id" {
		id += "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat(fmt.Sprintf("state of task %d;", next), 64)))
	}
	t := &task{created: time.Now(), result: rawserver.Text(text)}
	tasks[id] = t
	return map[string]any{"task": object(id, t)}, nil
}

func lookup(req *rawserver.Request) (string, *task, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	mu.Lock()
	defer mu.Unlock()
	t, ok := tasks[p.TaskID]
	if !ok {
		return "", nil, &rawserver.Error{Code: -32602, Message: "no such task"}
	}
	return p.TaskID, t, nil
}

func main() {
	flag.Parse()
	research := rawserver.Tool("research", "Research a topic; must be run as a task.", rawserver.OneString())
	research["execution"] = map[string]any{"taskSupport": "required"}
	rawserver.Main(&rawserver.Server{
		Name:    "tasks",
		Version: "1.0.0",
		Capabilities: map[string]any{
			"tools": map[string]any{},
			"tasks": map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}},
		},
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": []any{research}}, nil
			},
			"tools/call": call,
			"tasks/get": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				id, t, err := lookup(req)
				if err != nil {
					return nil, err
				}
				return object(id, t), nil
			},
			"tasks/result": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				_, t, err := lookup(req)
				if err != nil {
					return nil, err
				}
				if *mode == "crash" {
					fmt.Fprintln(os.Stderr, "tasks: panic: result store corrupted")
					os.Exit(2)
				}
				for status(t) == "working" {
					time.Sleep(20 * time.Millisecond)
				}
				return t.result, nil
			},
		},
	})
}
