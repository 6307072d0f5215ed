package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/learn"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// runLearning audits the needs-learning fixture and returns the report and
// the tools/call lines the server logged.
func runLearning(t *testing.T, adjust func(*Config)) (*report.Report, []string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "calls.log")
	rep := runFixture(t, "needs-learning", func(c *Config) {
		c.Env = append(c.Env, "NEEDS_LEARNING_LOG="+log)
		c.Cases = 8
		c.Repeat = 1 // the call counts below are about learning, not timing
		if adjust != nil {
			adjust(c)
		}
	})
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("reading the fixture's call log: %v", err)
	}
	return rep, strings.Split(strings.TrimSpace(string(b)), "\n")
}

func callsTo(calls []string, tool string) []string {
	var out []string
	for _, c := range calls {
		if strings.HasPrefix(c, tool+" ") {
			out = append(out, strings.TrimPrefix(c, tool+" "))
		}
	}
	return out
}

func TestLearnedValidCalls(t *testing.T) {
	parallel(t)
	rep, calls := runLearning(t, nil)
	for _, tc := range []struct {
		tool, from, arg, value string
	}{
		{"get_color", "error message", "color_name", "teal"},
		{"list_dir", "tool list_roots", "path", "/srv/alpha"},
		{"read_doc", "tool list_dir", "path", "/srv/alpha/notes.txt"},
		{"get_resource", "resources/list", "uri", "mem://docs/readme"},
		{"pick_size", "schema examples", "size_name", "small"},
		{"get_ticket", "tool browse_tickets", "ticket_id", "TCK-42"},
	} {
		c := validCase(t, rep, tc.tool)
		if c.Verdict != report.OK || c.LearnedFrom != tc.from {
			t.Errorf("%s: verdict %s, learnedFrom %q (detail %q); want ok learned from %q", tc.tool, c.Verdict, c.LearnedFrom, c.Detail, tc.from)
			continue
		}
		var args map[string]any
		if err := json.Unmarshal(c.Arguments, &args); err != nil || args[tc.arg] != tc.value {
			t.Errorf("%s: valid arguments %s, want %s = %q", tc.tool, c.Arguments, tc.arg, tc.value)
		}
		if strings.Contains(c.Detail, "synthetic-input false positive") {
			t.Errorf("%s: a learned call that worked still carries the synthetic-input advice: %q", tc.tool, c.Detail)
		}
		if !strings.HasPrefix(c.Detail, "synthetic arguments errored: ") || !strings.Contains(c.Detail, "learned from "+tc.from) {
			t.Errorf("%s: the detail does not keep the first attempt: %q", tc.tool, c.Detail)
		}
		if !toolOf(t, rep, tc.tool).Confirmed {
			t.Errorf("%s: not confirmed after a learned valid call", tc.tool)
		}
		// Each tool was called at most 1 + 3 times with a valid-looking call.
		if n := len(callsTo(calls, tc.tool)); n > 1+learn.MaxRetries+len(toolOf(t, rep, tc.tool).Cases) {
			t.Errorf("%s: called %d times", tc.tool, n)
		}
	}
	if got := rep.Dimensions["liveness"]; got.Score == nil {
		t.Fatalf("liveness not measured: %+v", got)
	}
}

func toolOf(t *testing.T, rep *report.Report, name string) report.Tool {
	t.Helper()
	for _, tl := range rep.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return report.Tool{}
}

// TestLearnedCasesDeriveFromLearnedArgs: the mutations of a tool whose
// valid call was learned start from the learned arguments.
func TestLearnedCasesDeriveFromLearnedArgs(t *testing.T) {
	parallel(t)
	rep, _ := runLearning(t, nil)
	tl := toolOf(t, rep, "get_color")
	synthetic := ""
	derived := 0
	for _, c := range tl.Cases[1:] {
		var args map[string]any
		if json.Unmarshal(c.Arguments, &args) != nil {
			continue // structural cases
		}
		if s, ok := args["color_name"].(string); ok {
			if !strings.HasPrefix(s, "teal") {
				synthetic = s
			}
			derived++
		}
	}
	if synthetic != "" || derived == 0 {
		t.Fatalf("bad cases of get_color: %d carry color_name, one of them %q: want every string color_name to derive from the learned \"teal\"", derived, synthetic)
	}
}

// TestLearningNeverCallsDestructiveOrSkippedTools: discovery only calls
// read-only tools the run selected; a destructive tool is never retried.
func TestLearningNeverCallsDestructiveOrSkippedTools(t *testing.T) {
	parallel(t)
	rep, calls := runLearning(t, func(c *Config) {
		c.SkipTools = []string{"list_private"}
	})
	for _, tool := range []string{"list_trash", "purge_doc", "list_private"} {
		if got := callsTo(calls, tool); len(got) > 0 {
			t.Errorf("%s was called %d times (first %s); it must not be called to learn", tool, len(got), got[0])
		}
	}
	for _, c := range cases(rep) {
		if strings.Contains(string(c.Arguments), "/srv/private") {
			t.Errorf("case %s uses a value of the skipped list_private: %s", c.ID, c.Arguments)
		}
	}

	// With destructive tools included, each is called for its own cases
	// only: the valid call of purge_doc is not retried with learned paths.
	rep, calls = runLearning(t, func(c *Config) { c.IncludeDestructive = true })
	for _, tool := range []string{"list_trash", "purge_doc"} {
		sent := 0
		for _, c := range toolOf(t, rep, tool).Cases {
			if c.Verdict != report.NotRun && c.Verdict != report.GeneratorGap {
				sent++
			}
		}
		if got := callsTo(calls, tool); len(got) != sent {
			t.Errorf("%s: called %d times for %d cases: it was called to learn", tool, len(got), sent)
		}
	}
	if c := validCase(t, rep, "purge_doc"); c.Verdict != report.Errored || c.LearnedFrom != "" {
		t.Errorf("purge_doc valid case: %s learned from %q, want errored and not learned", c.Verdict, c.LearnedFrom)
	}
}

// TestLearnedHangIsReported: a learned retry that hangs is the valid
// call's verdict, not hidden behind the first attempt's errored.
func TestLearnedHangIsReported(t *testing.T) {
	parallel(t)
	rep, _ := runLearning(t, nil)
	c := validCase(t, rep, "find_item")
	if c.Verdict != report.Hang || c.LearnedFrom != "error message" || !strings.Contains(string(c.Arguments), "item-7") {
		t.Fatalf("find_item valid case: %s learned from %q with %s (%s); want a hang on the learned item-7", c.Verdict, c.LearnedFrom, c.Arguments, c.Detail)
	}
}

// TestLearnedLeakIsReported: a learned retry whose answer leaks is the
// valid call, with its flag, not a failed try left out of the report.
func TestLearnedLeakIsReported(t *testing.T) {
	parallel(t)
	rep, _ := runLearning(t, nil)
	c := validCase(t, rep, "get_note")
	if c.LearnedFrom != "error message" || !slices.Contains(c.Flags, report.FlagLeak) || !strings.Contains(string(c.Arguments), "note-1") {
		t.Fatalf("get_note valid case: %s learned from %q, flags %v, arguments %s; want the leak of the learned note-1", c.Verdict, c.LearnedFrom, c.Flags, c.Arguments)
	}
}

func TestLearningIsDeterministic(t *testing.T) {
	parallel(t)
	first, _ := runLearning(t, nil)
	second, _ := runLearning(t, nil)
	for i, tl := range first.Tools {
		other := second.Tools[i]
		if len(tl.Cases) != len(other.Cases) {
			t.Fatalf("%s: %d cases, then %d", tl.Name, len(tl.Cases), len(other.Cases))
		}
		for j, c := range tl.Cases {
			o := other.Cases[j]
			if c.ID != o.ID || !bytes.Equal(c.Arguments, o.Arguments) || c.LearnedFrom != o.LearnedFrom {
				t.Errorf("%s: case %d differs between runs with one seed: %s %s %q / %s %s %q", tl.Name, j, c.ID, c.Arguments, c.LearnedFrom, o.ID, o.Arguments, o.LearnedFrom)
			}
		}
	}
}

// TestConfigExampleIsNeverReplaced: a user's example stays the valid call,
// and its failure is a finding, not something to learn around.
func TestConfigExampleIsNeverReplaced(t *testing.T) {
	parallel(t)
	rep, calls := runLearning(t, func(c *Config) {
		c.Examples = map[string]map[string]any{"get_color": {"color_name": "mauve"}}
	})
	c := validCase(t, rep, "get_color")
	if c.Verdict != report.Errored || c.LearnedFrom != "" || !strings.Contains(string(c.Arguments), "mauve") {
		t.Fatalf("get_color with a config example: %s learned from %q with %s", c.Verdict, c.LearnedFrom, c.Arguments)
	}
	for _, a := range callsTo(calls, "get_color") {
		if strings.Contains(a, "teal") {
			t.Fatalf("get_color was retried with a learned value despite the config example: %s", a)
		}
	}
}

// TestLearnedValuesCarryNoSecret: a value that holds a secret is never
// sent, so it never reaches the report.
func TestLearnedValuesCarryNoSecret(t *testing.T) {
	parallel(t)
	d := leak.NewDetector(map[string]string{"TOKEN": "hunter2-very-secret"})
	r := &runner{leak: d}
	for _, v := range []string{"***", "/srv/hunter2-very-secret", "/srv/***/x", "AKIAIOSFODNN7EXAMPLE", "ok\x00", strings.Repeat("a", learn.MaxValue+1),
		"hunter2-very", "HUNTER2-VERY-SECRET", "aHVudGVyMi12ZXJ5LXNlY3JldA==", "terces-yrev-2retnuh", "/keys/2-VERY-SE"} {
		if r.usableValue(v) {
			t.Errorf("usableValue(%q) = true", v)
		}
	}
	if !r.usableValue("/srv/alpha/notes.txt") {
		t.Error("an ordinary path is not usable")
	}
}

func TestRetryAndDiscoverySafety(t *testing.T) {
	parallel(t)
	yes, no := true, false
	for _, tc := range []struct {
		ro, destr        *bool
		retry, discovery bool
	}{
		{&yes, nil, true, true},
		{&yes, &yes, false, false},
		{nil, &no, true, false},
		{&no, &no, true, false},
		{nil, nil, false, false},
		{&no, nil, false, false},
	} {
		tl := tool{ReadOnly: tc.ro, Destructive: tc.destr}
		if tl.RetrySafe() != tc.retry || tl.DiscoverySafe() != tc.discovery {
			t.Errorf("readOnly %v destructive %v: retry %v discovery %v, want %v %v", tc.ro, tc.destr, tl.RetrySafe(), tl.DiscoverySafe(), tc.retry, tc.discovery)
		}
	}
}

// TestReplayOfLearnedTool: the learned valid case replays with its
// recorded arguments, and a compacted mutation regenerates only from the
// learned arguments (Config.Learned), as the run generated it.
func TestReplayOfLearnedTool(t *testing.T) {
	parallel(t)
	var cfg Config
	rep := runFixture(t, "needs-learning", func(c *Config) {
		c.Tools = []string{"get_color"}
		cfg = *c
	})
	valid := validCase(t, rep, "get_color")
	// A mutation as a report that compacted it records it: a digest of
	// the arguments, no pattern, so replay must regenerate them.
	var compacted *report.Case
	for _, c := range toolOf(t, rep, "get_color").Cases {
		if c.ID == "get_color/wrong_type/shade" {
			c.ArgumentsDigest = report.DigestArguments(c.Arguments)
			c.ArgumentsDigest.Pattern = nil
			c.Arguments = nil
			compacted = &c
		}
	}
	if valid.LearnedFrom == "" || compacted == nil {
		t.Fatalf("get_color: learnedFrom %q, case wrong_type/shade %v", valid.LearnedFrom, compacted)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now, err := Replay(ctx, cfg, "get_color", valid)
	if err != nil || now.Verdict != report.OK || !bytes.Equal(now.Arguments, valid.Arguments) {
		t.Fatalf("replaying the learned valid case: %v, %s with %s", err, now.Verdict, now.Arguments)
	}

	noPattern := *compacted
	if _, err := Replay(ctx, cfg, "get_color", noPattern); !errors.Is(err, ErrArgumentsChanged) {
		t.Fatalf("replaying %s without the learned arguments: %v, want ErrArgumentsChanged", compacted.ID, err)
	}
	var learned map[string]any
	if err := json.Unmarshal(valid.Arguments, &learned); err != nil {
		t.Fatal(err)
	}
	cfg.Learned = map[string]map[string]any{"get_color": learned}
	if _, err := Replay(ctx, cfg, "get_color", noPattern); err != nil {
		t.Fatalf("replaying %s from the learned arguments: %v", compacted.ID, err)
	}
}

// TestFailedLearningSaysWhatWasTried: without the directory listing
// (skipped), read_doc only learns directories, which it cannot read: the
// verdict stays errored, and the detail names the tries, at most three.
func TestFailedLearningSaysWhatWasTried(t *testing.T) {
	parallel(t)
	rep, calls := runLearning(t, func(c *Config) { c.SkipTools = []string{"list_dir"} })
	if got := callsTo(calls, "list_dir"); len(got) > 0 {
		t.Fatalf("the skipped list_dir was called: %v", got)
	}
	c := validCase(t, rep, "read_doc")
	if c.Verdict != report.Errored || c.LearnedFrom != "" {
		t.Fatalf("read_doc: %s learned from %q, want errored", c.Verdict, c.LearnedFrom)
	}
	if !strings.Contains(c.Detail, `learning a valid call: {"path":"/srv/alpha"} from error message: isError: EISDIR`) {
		t.Errorf("read_doc detail does not say what was tried: %q", c.Detail)
	}
	retries := 0
	for _, a := range callsTo(calls, "read_doc") {
		if strings.Contains(a, `"/srv/`) {
			retries++
		}
	}
	if retries == 0 || retries > learn.MaxRetries {
		t.Errorf("read_doc retried %d times with learned paths, want 1 to %d", retries, learn.MaxRetries)
	}
}

// TestLearningNeverSendsASecret: a value the server names that is a secret
// of the run is redacted before learning sees it, so it is never sent back
// and never reaches the report.
func TestLearningNeverSendsASecret(t *testing.T) {
	parallel(t)
	const secret = "vault-s3cr3t-Key-8812"
	rep, calls := runLearning(t, func(c *Config) {
		c.Env = append(c.Env, "NEEDS_LEARNING_VAULT_KEY="+secret)
		c.Secrets = []string{"NEEDS_LEARNING_VAULT_KEY"}
	})
	// The server also names the secret's first 12 characters, its
	// upper-cased form, its base64 and its reversal: none is sent back.
	reversed := []byte(secret)
	slices.Reverse(reversed)
	for _, a := range callsTo(calls, "get_vault_entry") {
		for _, form := range []string{secret, secret[:12], strings.ToUpper(secret), base64.StdEncoding.EncodeToString([]byte(secret)), string(reversed)} {
			if strings.Contains(a, form) {
				t.Fatalf("a form of the secret, %q, was sent back to the server: %s", form, a)
			}
		}
	}
	if c := validCase(t, rep, "get_vault_entry"); c.Verdict != report.Errored || c.LearnedFrom != "" {
		t.Errorf("get_vault_entry: %s learned from %q, want errored", c.Verdict, c.LearnedFrom)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secret)) {
		t.Fatal("the report carries the secret")
	}
}

// TestLearnedCallIsTheOneTimed checks that --repeat times the learned call,
// not the synthetic one that errored.
func TestLearnedCallIsTheOneTimed(t *testing.T) {
	parallel(t)
	rep, calls := runLearning(t, func(c *Config) { c.Repeat = 3 })
	c := validCase(t, rep, "read_doc")
	if c.Verdict != report.OK || c.Timing == nil || c.Timing.Runs != 3 {
		t.Fatalf("read_doc valid: verdict %s, timing %+v; want ok timed over 3 runs", c.Verdict, c.Timing)
	}
	learned := 0
	for _, call := range callsTo(calls, "read_doc") {
		if strings.Contains(call, "/srv/alpha/notes.txt") {
			learned++
		}
	}
	// The learned retry, then two more timed runs; the bad-input cases
	// derived from it may send the path again.
	if learned < 3 {
		t.Errorf("read_doc got the learned path %d times, want at least 3 (the learned call and its repeats): %q", learned, callsTo(calls, "read_doc"))
	}
}

// caseByID returns the case id of tool in rep, failing the test when
// there is none.
func caseByID(t *testing.T, rep *report.Report, tool, id string) report.Case {
	t.Helper()
	for _, c := range toolOf(t, rep, tool).Cases {
		if c.ID == id {
			return c
		}
	}
	var ids []string
	for _, c := range toolOf(t, rep, tool).Cases {
		ids = append(ids, c.ID)
	}
	t.Fatalf("%s has no case %q; it has %v", tool, id, ids)
	return report.Case{}
}

func findingOf(rep *report.Report, caseID, code string) *report.Finding {
	for i, f := range rep.Findings {
		if f.CaseID == caseID && f.Code == code {
			return &rep.Findings[i]
		}
	}
	return nil
}

// TestDiscoveryCrashIsAFinding: a listing that learning calls with a path
// the server named (list_dir of /srv/beta, to find a file for read_doc)
// and that kills the server is a crash case of the listing tool, with a
// finding whose reproducer is that call, and it replays; the learned tool
// stays errored and names the case.
func TestDiscoveryCrashIsAFinding(t *testing.T) {
	parallel(t)
	var cfg Config
	rep, _ := runLearning(t, func(c *Config) {
		c.Env = append(c.Env, "NEEDS_LEARNING_MODE=crash-dir")
		cfg = *c
	})
	const id = "list_dir/valid/discovery-1"
	c := caseByID(t, rep, "list_dir", id)
	if c.Kind != report.KindValid || c.Verdict != report.Crash || c.Crash == nil || c.Crash.How != "exit" || !strings.Contains(c.Crash.ExitStatus, "139") {
		t.Fatalf("%s: kind %s verdict %s crash %+v; want a valid-kind crash by exit 139", id, c.Kind, c.Verdict, c.Crash)
	}
	if string(c.Arguments) != `{"path":"/srv/beta"}` || !strings.Contains(c.Detail, "discovery call") || !strings.Contains(c.Detail, "read_doc") {
		t.Errorf("%s: arguments %s, detail %q", id, c.Arguments, c.Detail)
	}
	f := findingOf(rep, id, "crash")
	if f == nil {
		t.Fatalf("no crash finding for %s: %+v", id, rep.Findings)
	}
	if f.Tool != "list_dir" || !strings.Contains(f.Reproducer.JSONRPC, `"name":"list_dir","arguments":{"path":"/srv/beta"}`) {
		t.Errorf("finding %s: tool %s, reproducer %q", f.ID, f.Tool, f.Reproducer.JSONRPC)
	}
	if rc := validCase(t, rep, "read_doc"); rc.Verdict != report.Errored || !strings.Contains(rc.Detail, id) {
		t.Errorf("read_doc valid case: %s, detail %q; want errored naming %s", rc.Verdict, rc.Detail, id)
	}
	// The crash counts: the grade is capped and liveness is not 100.
	if l := rep.Dimensions["liveness"]; l.Score == nil || *l.Score == 100 {
		t.Errorf("liveness %+v despite a crashed valid call of list_dir", l)
	}
	// The session was restarted: the tools after read_doc still ran.
	if rc := validCase(t, rep, "get_color"); rc.Verdict != report.OK {
		t.Errorf("get_color after the crash: %s (%s)", rc.Verdict, rc.Detail)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now, err := Replay(ctx, cfg, "list_dir", c)
	if err != nil || now.Verdict != report.Crash {
		t.Fatalf("replaying %s: %v, verdict %s (%s)", id, err, now.Verdict, now.Detail)
	}
}

// TestDiscoveryHangIsAFinding: a listing that never answers a learned path
// is a hang case of the listing tool, not silence.
func TestDiscoveryHangIsAFinding(t *testing.T) {
	parallel(t)
	rep, _ := runLearning(t, func(c *Config) {
		c.Env = append(c.Env, "NEEDS_LEARNING_MODE=hang-dir")
	})
	const id = "list_dir/valid/discovery-1"
	c := caseByID(t, rep, "list_dir", id)
	if c.Verdict != report.Hang || string(c.Arguments) != `{"path":"/srv/beta"}` {
		t.Fatalf("%s: %s with %s; want a hang on /srv/beta", id, c.Verdict, c.Arguments)
	}
	if findingOf(rep, id, "hang") == nil {
		t.Fatalf("no hang finding for %s", id)
	}
}

// TestHungListingIsNotCalledAgain: a listing tool that hung (and wedged the
// server) when learning called it is not called again to learn for the
// later tools: with --max-hangs 1 it gets its discovery call and its own
// valid call, nothing more.
func TestHungListingIsNotCalledAgain(t *testing.T) {
	parallel(t)
	rep, calls := runLearning(t, func(c *Config) {
		c.Env = append(c.Env, "NEEDS_LEARNING_MODE=wedge-roots")
		c.MaxHangs = 1
	})
	if got := callsTo(calls, "list_roots"); len(got) > 2 {
		t.Fatalf("list_roots was called %d times: %q", len(got), got)
	}
	c := caseByID(t, rep, "list_roots", "list_roots/valid/discovery-1")
	if c.Verdict != report.Hang {
		t.Fatalf("list_roots discovery call: %s (%s)", c.Verdict, c.Detail)
	}
	if n := len(toolOf(t, rep, "list_roots").Cases); n == 0 || toolOf(t, rep, "list_roots").Cases[n-1].ID != c.ID {
		t.Errorf("the discovery case is not after list_roots's own cases")
	}
}
