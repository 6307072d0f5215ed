package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
)

// Bounds of a task-augmented call (MCP 2025-11-25 tasks): the server's
// pollInterval is clamped to [minPollInterval, maxPollInterval], and no
// more than maxTaskPolls tasks/get requests are sent for one call, whatever
// the call timeout. The specification bounds no taskId, and a stateless
// server may encode its state into one (a kilobyte or more is no defect):
// maxTaskIDLen only bounds what the polls send back, maxTaskPolls times.
const (
	minPollInterval = 100 * time.Millisecond
	maxPollInterval = 2 * time.Second
	maxTaskPolls    = 600
	maxTaskIDLen    = 64 << 10
)

// Task statuses of MCP 2025-11-25. All but "working" end the polling:
// "input_required" too, since tasks/result is where the server delivers
// its requests for input (and blocks until the task ends).
var taskStatuses = map[string]bool{
	"working":        false,
	"input_required": true,
	"completed":      true,
	"failed":         true,
	"cancelled":      true,
}

// taskInfo is the task object of a CreateTaskResult and of a tasks/get
// answer.
type taskInfo struct {
	TaskID       string   `json:"taskId"`
	Status       string   `json:"status"`
	PollInterval *float64 `json:"pollInterval"`
	TTL          *float64 `json:"ttl"`
}

// TaskCall makes a task-augmented tools/call of params within ctx: the
// call with "task": {"ttl": limit}, then tasks/get until the task reaches
// a status that ends the polling, then tasks/result, whose answer (the
// tool's CallToolResult, or its JSON-RPC error) is returned as a plain
// call's would be. A task that never finishes runs into ctx's deadline (a
// hang), as does one past its own ttl. An answer that is not a task
// object is a protocol violation of the call: it is recorded, and the
// call ends as cut short. *state says how far the task got, for the
// detail of a call that did not end.
func (s *Session) TaskCall(ctx context.Context, params json.RawMessage, limit time.Duration, state *string) (json.RawMessage, []string, error) {
	raw, found, err := s.Call(ctx, "tools/call", mcptool.TaskParams(params, limit))
	if err != nil {
		return raw, found, err
	}
	var created struct {
		Task *taskInfo `json:"task"`
	}
	var task *taskInfo
	if json.Unmarshal(raw, &created) == nil {
		task = created.Task
	}
	if msg := badTask(task); msg != "" {
		return s.taskViolation(ctx, "the answer to a task-augmented tools/call is not a CreateTaskResult: "+msg)
	}
	if ttl := task.TTL; ttl != nil && *ttl > 0 && *ttl < float64(limit.Milliseconds()) {
		// The task's own timeout: the server keeps it no longer. (Compared
		// as milliseconds: a huge ttl would overflow a Duration.)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*ttl*float64(time.Millisecond)))
		defer cancel()
	}
	id := task.TaskID
	for polls := 0; !taskStatuses[task.Status]; polls++ {
		*state = fmt.Sprintf("task %.64q was still %q after %d tasks/get", id, task.Status, polls)
		if polls >= maxTaskPolls {
			return nil, found, context.DeadlineExceeded
		}
		t := time.NewTimer(pollInterval(task))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, found, ctx.Err()
		case <-t.C:
		}
		raw, more, err := s.Call(ctx, "tasks/get", map[string]string{"taskId": id})
		found = append(found, more...)
		if err != nil {
			return raw, found, err
		}
		var got taskInfo
		if json.Unmarshal(raw, &got) != nil {
			return s.taskViolation(ctx, "the answer to tasks/get is not a task object")
		}
		if msg := badTask(&got); msg != "" {
			return s.taskViolation(ctx, "the answer to tasks/get: "+msg)
		}
		if got.TaskID != id {
			return s.taskViolation(ctx, fmt.Sprintf("the answer to tasks/get is about task %.64q, not %.64q", got.TaskID, id))
		}
		task = &got
	}
	*state = fmt.Sprintf("task %.64q was %q, and tasks/result did not answer", id, task.Status)
	raw, more, err := s.Call(ctx, "tasks/result", map[string]string{"taskId": id})
	return raw, append(found, more...), err
}

// taskViolation records desc as a protocol violation of the call in
// flight and ends the call as cut short by it.
func (s *Session) taskViolation(ctx context.Context, desc string) (json.RawMessage, []string, error) {
	s.violate(desc)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	return nil, nil, context.Canceled
}

// badTask says what is wrong with a task object, or "" when nothing is.
func badTask(t *taskInfo) string {
	switch {
	case t == nil:
		return "no task object"
	case t.TaskID == "":
		return "the task has no taskId"
	case len(t.TaskID) > maxTaskIDLen:
		return fmt.Sprintf("a taskId of %d bytes (over %d)", len(t.TaskID), maxTaskIDLen)
	}
	if _, ok := taskStatuses[t.Status]; !ok {
		return fmt.Sprintf("unknown task status %.64q", t.Status)
	}
	return ""
}

// pollInterval is the wait before the next tasks/get: the server's
// pollInterval, clamped.
func pollInterval(t *taskInfo) time.Duration {
	if t.PollInterval == nil {
		return time.Second
	}
	// Clamped as milliseconds, before the conversion: a huge pollInterval
	// would overflow a Duration.
	ms := min(max(*t.PollInterval, float64(minPollInterval.Milliseconds())), float64(maxPollInterval.Milliseconds()))
	return time.Duration(ms * float64(time.Millisecond))
}
