package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// notes is a Caller over an in-memory store of notes: create_note makes
// one, get_note reads it, delete_note deletes it (or, stale, answers
// success and keeps it).
type notes struct {
	stale bool
	store map[string]bool
	made  int
	sent  []string // tool names, in order
}

func (n *notes) Call(_ context.Context, t mcptool.Tool, raw json.RawMessage) Answer {
	n.sent = append(n.sent, t.Name)
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	id, _ := args["note_id"].(string)
	ok := func(text string) Answer { return Answer{Case: report.Case{Verdict: report.OK}, Text: text} }
	switch t.Name {
	case "create_note":
		n.made++
		id = fmt.Sprintf("note-%d", n.made)
		n.store[id] = true
		return ok(`{"id":"` + id + `","secret":"s3cret"}`)
	case "get_note":
		if n.store[id] {
			return ok(`{"id":"` + id + `"}`)
		}
		return Answer{Case: report.Case{Verdict: report.Errored, Detail: "isError: no such note"}, Text: "no such note"}
	case "delete_note":
		if !n.stale {
			delete(n.store, id)
		}
		return ok("deleted")
	}
	return Answer{Case: report.Case{Verdict: report.Errored}}
}

func (n *notes) Live() bool { return true }

func (n *notes) Redact(s string) string { return strings.ReplaceAll(s, "s3cret", "[REDACTED]") }

func (n *notes) Params(tool string, args json.RawMessage) json.RawMessage {
	return fmt.Appendf(nil, `{"name":%q,"arguments":%s}`, tool, args)
}

// The checks run on a Caller alone: a store that keeps what it deleted
// fails lifecycle/note with stale_read, its reproducer the four calls
// through Params and Redact; a store that forgets it passes.
func TestRun(t *testing.T) {
	t.Parallel()
	tools := toolsNamed(map[string]string{"create_note": "title", "get_note": "note_id", "delete_note": "note_id"})
	plan := NewPlan(tools, func(mcptool.Tool) string { return "" }, nil)
	o := Options{Examples: map[string]map[string]any{"create_note": {"title": "s3cret"}}, Seed: 1, MaxHangs: 2}
	for _, stale := range []bool{true, false} {
		n := &notes{stale: stale, store: map[string]bool{}}
		checks := plan.Run(context.Background(), n, o)
		if len(checks) != 1 || checks[0].ID != "lifecycle/note" {
			t.Fatalf("stale %v: checks %+v, want lifecycle/note alone", stale, checks)
		}
		c := checks[0]
		if want := []string{"create_note", "get_note", "delete_note", "get_note"}; strings.Join(n.sent, " ") != strings.Join(want, " ") {
			t.Errorf("stale %v: calls %v, want %v", stale, n.sent, want)
		}
		if len(c.Calls) != 4 || !strings.Contains(string(c.Calls[0]), `"name":"create_note"`) || strings.Contains(joined(c.Calls), "s3cret") {
			t.Errorf("stale %v: calls kept %s; want 4 tools/call lines, redacted", stale, c.Calls)
		}
		switch {
		case stale && (c.Status != report.CheckFail || c.Code != report.CodeStaleRead || !strings.Contains(string(c.Request), "get_note")):
			t.Errorf("stale store: %+v, want a stale_read failure with the read as request", c)
		case !stale && (c.Status != report.CheckPass || !strings.Contains(c.Detail, `create_note made id "note-1" (field id of the JSON text)`)):
			t.Errorf("clean store: %+v, want a pass naming the id", c)
		}
	}
}

// Calls that time out count against MaxHangs: once spent, the remaining
// groups are skipped with why, and nothing more is cleaned up.
func TestRunHangsBounded(t *testing.T) {
	t.Parallel()
	specs := map[string]string{}
	for _, noun := range []string{"alpha", "beta", "gamma", "delta"} {
		specs["create_"+noun], specs["get_"+noun], specs["delete_"+noun] = "title", noun+"_id", noun+"_id"
	}
	plan := NewPlan(toolsNamed(specs), func(mcptool.Tool) string { return "" }, nil)
	hung := &hangAll{}
	checks := plan.Run(context.Background(), hung, Options{MaxHangs: 2})
	if hung.calls != 2 {
		t.Errorf("%d calls made, want 2: none after the second hang", hung.calls)
	}
	skipped := 0
	for _, c := range checks {
		if c.Status == report.CheckSkip && strings.Contains(c.Detail, "2 calls of the lifecycle checks before this one got no answer") {
			skipped++
		}
	}
	if len(checks) != 4 || skipped != 2 {
		t.Errorf("checks %+v: want 4, the last 2 skipped for the hangs", checks)
	}
}

// hangAll is a Caller whose every call times out.
type hangAll struct{ calls int }

func (h *hangAll) Call(context.Context, mcptool.Tool, json.RawMessage) Answer {
	h.calls++
	return Answer{Case: report.Case{Verdict: report.Hang}, TimedOut: true}
}
func (h *hangAll) Live() bool                                     { return true }
func (h *hangAll) Redact(s string) string                         { return s }
func (h *hangAll) Params(string, json.RawMessage) json.RawMessage { return json.RawMessage(`{}`) }

// joined is the text of lines, one after the other.
func joined(lines []json.RawMessage) string {
	var b strings.Builder
	for _, l := range lines {
		b.Write(l)
	}
	return b.String()
}
