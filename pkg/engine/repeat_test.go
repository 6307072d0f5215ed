package engine

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestRepeatMedianDecides: the slow flag follows the median of the valid
// call's runs, not its first run; tools not harmless to repeat are called
// once; a run that crashes becomes the case's verdict.
func TestRepeatMedianDecides(t *testing.T) {
	// Not parallel: it judges wall-clock times (slow, hang), which
	// tests running alongside would distort.
	rep := runFixture(t, "repeat-timing", func(c *Config) {
		c.Cases = 4
		c.SlowMs = 300
		c.IncludeDestructive = true
	})

	warm := validCase(t, rep, "warm_lookup")
	if warm.Timing == nil || warm.Timing.Runs != 3 {
		t.Fatalf("warm_lookup timing = %+v, want 3 runs", warm.Timing)
	}
	if warm.DurationMs < 500 || warm.Timing.P50Ms > 300 || warm.Timing.P95Ms < 500 {
		t.Errorf("warm_lookup: first run %.0f ms, timing %+v: want a slow first run, a fast p50 and a slow p95", warm.DurationMs, warm.Timing)
	}
	if warm.HasFlag(report.FlagSlow) {
		t.Errorf("warm_lookup flagged slow on its first run: %s", warm.Detail)
	}

	cold := validCase(t, rep, "cold_lookup")
	if cold.DurationMs > 300 || cold.Timing == nil || cold.Timing.Runs != 3 || cold.Timing.P50Ms < 500 {
		t.Errorf("cold_lookup: first run %.0f ms, timing %+v: want a fast first run and a slow p50 over 3 runs", cold.DurationMs, cold.Timing)
	}
	if !cold.HasFlag(report.FlagSlow) {
		t.Errorf("cold_lookup is not flagged slow: %s", cold.Detail)
	}
	var slowMsg string
	for _, f := range rep.Findings {
		if f.Code == report.FlagSlow && f.Tool == "cold_lookup" {
			slowMsg = f.Message
		}
	}
	if !strings.HasPrefix(slowMsg, "the valid call is slow: p50 ") || !strings.Contains(slowMsg, " ms over 3 runs, above --slow-ms 300") || strings.Count(slowMsg, "slow:") != 1 {
		t.Errorf("slow finding message = %q, want it to say slow once, with the p50 over 3 runs", slowMsg)
	}

	if idem := validCase(t, rep, "idem_store"); idem.Timing == nil || idem.Timing.Runs != 3 {
		t.Errorf("idem_store (idempotentHint) timing = %+v, want 3 runs", idem.Timing)
	}

	plain := validCase(t, rep, "plain_store")
	if plain.Timing == nil || plain.Timing.Runs != 1 || !strings.Contains(plain.Timing.Note, "not annotated readOnlyHint or idempotentHint") {
		t.Errorf("plain_store timing = %+v, want 1 run and why", plain.Timing)
	}
	for _, tl := range rep.Tools {
		if tl.Name != "plain_store" {
			continue
		}
		last := tl.Cases[len(tl.Cases)-1]
		if last.Kind == report.KindValid || !strings.Contains(last.Response, "valid calls so far: 1") {
			t.Errorf("plain_store's last bad-input answer = %q, want it to count 1 valid call", last.Response)
		}
	}

	crash := validCase(t, rep, "crash_on_repeat")
	if crash.Verdict != report.Crash || crash.Crash == nil || !strings.Contains(crash.Detail, "run 2 of 3") || !strings.Contains(crash.Detail, "the first run was ok") {
		t.Errorf("crash_on_repeat valid case = %s (%s), want crash on run 2 of 3", crash.Verdict, crash.Detail)
	}
	if crash.Timing == nil || crash.Timing.Runs != 1 || crash.Timing.FailedRun != 2 {
		t.Errorf("crash_on_repeat timing = %+v, want the 1 successful run and run 2 failed", crash.Timing)
	}
	for _, tl := range rep.Tools {
		if tl.Name != "crash_on_repeat" {
			continue
		}
		if !tl.Confirmed {
			t.Error("crash_on_repeat is not confirmed although its first valid call succeeded")
		}
		// The session was restarted: the bad-input cases after it ran.
		for _, c := range tl.Cases[1:] {
			if c.Verdict == report.NotRun || c.Verdict.Failure() {
				t.Errorf("case %s after the crashing repeat: %s (%s)", c.ID, c.Verdict, c.Detail)
			}
		}
	}
	hang := validCase(t, rep, "hang_on_repeat")
	if hang.Verdict != report.Hang || !strings.Contains(hang.Detail, "run 2 of 3") || hang.Timing == nil || hang.Timing.Runs != 1 {
		t.Errorf("hang_on_repeat valid case = %s (%s, timing %+v), want a hang on run 2 of 3", hang.Verdict, hang.Detail, hang.Timing)
	}

	var crashFinding *report.Finding
	for i, f := range rep.Findings {
		if f.Code == string(report.Crash) && f.Tool == "crash_on_repeat" && f.CaseID == crash.ID {
			crashFinding = &rep.Findings[i]
		}
	}
	if crashFinding == nil {
		t.Fatal("no crash finding for the repeat that crashed")
	}
	// Its reproducer calls twice, and works as printed: the server exits.
	sh := crashFinding.Reproducer.Shell
	if !strings.Contains(sh, `"id":2,"method":"tools/call"`) || !strings.Contains(sh, `"id":3,"method":"tools/call"`) {
		t.Errorf("reproducer %q does not send the call twice", sh)
	}
	cmd := exec.Command("sh", "-c", sh+"; echo exit=$?")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), `"id":2`) || strings.Contains(string(out), `"id":3`) || !strings.Contains(string(out), "exit=3") {
		t.Errorf("reproducer output %q: want the first call answered, the second not, the server exited 3", out)
	}
}

// TestRepeatOnce: --repeat 1 times every valid call once, without a note.
func TestRepeatOnce(t *testing.T) {
	// Not parallel: it judges wall-clock times (slow, hang), which
	// tests running alongside would distort.
	rep := runFixture(t, "repeat-timing", func(c *Config) { c.Cases = 1; c.Repeat = 1; c.Tools = []string{"warm_lookup"} })
	c := validCase(t, rep, "warm_lookup")
	if c.Timing == nil || c.Timing.Runs != 1 || c.Timing.Note != "" || c.Timing.P50Ms != c.DurationMs {
		t.Errorf("timing = %+v, want 1 run of %.1f ms and no note", c.Timing, c.DurationMs)
	}
}
