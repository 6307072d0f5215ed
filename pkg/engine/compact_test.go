package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestReportSize measures the JSON report of runs shaped like real ones: 40
// cases per tool, one valid call, bad inputs with short arguments, and an
// oversize string and array per tool with 64 KiB arguments; a third of the
// cases fail, each with a finding.
func TestReportSize(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		cases, limit int
	}{
		{1000, 2 << 20},
		{18000, 30 << 20},
	} {
		rep := syntheticReport(tc.cases)
		b, err := render.JSON(rep)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d cases, %d findings: JSON report %d bytes (%.1f MiB)", tc.cases, len(rep.Findings), len(b), float64(len(b))/(1<<20))
		if len(b) > tc.limit {
			t.Errorf("%d cases: JSON report is %d bytes, over %d", tc.cases, len(b), tc.limit)
		}
	}
}

func syntheticReport(n int) *report.Report {
	const perTool = 40
	cfg := Config{Command: []string{"node", "/home/user/src/server/dist/index.js"}, Env: []string{"API_TOKEN=x"}}
	rep := &report.Report{Version: "dev", Seed: 1, Config: report.Settings{Cases: perTool, Profile: "default"},
		Target: report.Target{Transport: "stdio", Command: "node", Args: cfg.Command}}
	code := int64(-32602)
	for ti := 0; ti*perTool < n; ti++ {
		name := fmt.Sprintf("tool_number_%d", ti)
		tl := report.Tool{Name: name, Description: strings.Repeat("Does something useful with its input. ", 12), Tested: true, Confirmed: true}
		for ci := 0; ci < perTool && ti*perTool+ci < n; ci++ {
			var raw json.RawMessage
			kind, ptr := "wrong_type", fmt.Sprintf("/property_%d", ci)
			switch ci {
			case 0:
				kind, ptr = "valid", ""
				raw = json.RawMessage(`{"query":"example query","limit":10,"filters":{"owner":"alice","tags":["a","b"]}}`)
			case 1:
				kind = "oversize"
				raw = json.RawMessage(`{"query":"` + strings.Repeat("A", 64<<10) + `","limit":10}`)
			case 2:
				kind = "oversize"
				raw = json.RawMessage(`{"tags":[` + strings.Repeat(`"a",`, 16<<10) + `"a"]}`)
			default:
				raw = json.RawMessage(fmt.Sprintf(`{"query":"example query","limit":"not a number %d","filters":{"owner":"alice","tags":["a","b"]}}`, ci))
			}
			args, digest := report.CompactArguments(raw)
			c := report.Case{ID: fmt.Sprintf("%s/%s%s#%d", name, kind, ptr, ci), Kind: kind, Pointer: ptr, Forbidden: ci > 0,
				Verdict: report.Handled, Flags: []string{}, DurationMs: 12.345, Arguments: args, ArgumentsDigest: digest,
				Response: "Error: invalid arguments: " + strings.Repeat("expected a string at /query; ", 9), Size: 1200}
			switch ci % 3 {
			case 1:
				c.Verdict, c.Detail, c.Response = report.Accepted, "the server returned a result for input its schema forbids", ""
			case 2:
				c.Verdict, c.ErrorCode = report.Rejected, &code
				c.Detail = "JSON-RPC error -32602: " + strings.Repeat("invalid params ", 13)
			}
			tl.Cases = append(tl.Cases, c)
		}
		rep.Tools = append(rep.Tools, tl)
	}
	rep.Summary = report.Summarize(rep.Tools)
	rep.Findings = findings(rep, cfg)
	rep.Normalize()
	return rep
}

// replayFixture audits silent-accept, whose echo_note accepts everything,
// and returns the config, the report and its compacted oversize case.
func replayFixture(t *testing.T) (Config, *report.Report, report.Case) {
	t.Helper()
	var cfg Config
	rep := runFixture(t, "silent-accept", func(c *Config) { cfg = *c })
	for _, c := range cases(rep) {
		if c.ArgumentsDigest != nil {
			return cfg, rep, c
		}
	}
	t.Fatal("no case with compacted arguments")
	return cfg, nil, report.Case{}
}

func TestReplayRegeneratesCompactedArguments(t *testing.T) {
	parallel(t)
	cfg, rep, c := replayFixture(t)
	if c.Arguments != nil {
		t.Errorf("compacted case %s keeps %d bytes of arguments", c.ID, len(c.Arguments))
	}
	var f *report.Finding
	for i := range rep.Findings {
		if rep.Findings[i].CaseID == c.ID {
			f = &rep.Findings[i]
		}
	}
	if f == nil || f.Reproducer.JSONRPC != "" || !strings.HasPrefix(f.Reproducer.Shell, "mcp-fuzz replay REPORT.json '"+c.ID+"' -- ") {
		t.Errorf("finding of %s: %+v, want a replay reproducer", c.ID, f)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now, err := Replay(ctx, cfg, "echo_note", c)
	if err != nil {
		t.Fatalf("Replay(%s): %v", c.ID, err)
	}
	if now.Verdict != c.Verdict || now.ArgumentsDigest == nil || !reflect.DeepEqual(*now.ArgumentsDigest, *c.ArgumentsDigest) {
		t.Errorf("replayed %s: verdict %s (was %s), digest %+v (was %+v)", c.ID, now.Verdict, c.Verdict, now.ArgumentsDigest, c.ArgumentsDigest)
	}

	if c.ArgumentsDigest.Pattern == nil {
		t.Errorf("%s: an oversize string has no pattern", c.ID)
	}
	changed := c
	d := *c.ArgumentsDigest
	d.SHA256 = strings.Repeat("0", 64)
	changed.ArgumentsDigest = &d
	if _, err := Replay(ctx, cfg, "echo_note", changed); !errors.Is(err, ErrArgumentsChanged) || !strings.Contains(err.Error(), "schema changed") {
		t.Errorf("Replay with another digest: %v, want ErrArgumentsChanged", err)
	}
	// Without a pattern, replay regenerates from the schema and the id.
	gone := c
	gone.ID = "echo_note/oversize/nosuch#string"
	noPattern := *c.ArgumentsDigest
	noPattern.Pattern = nil
	gone.ArgumentsDigest = &noPattern
	if _, err := Replay(ctx, cfg, "echo_note", gone); !errors.Is(err, ErrArgumentsChanged) || !strings.Contains(err.Error(), "no longer yields case") {
		t.Errorf("Replay of a case no longer generated: %v, want ErrArgumentsChanged", err)
	}
}
