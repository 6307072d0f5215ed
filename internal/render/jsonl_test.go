package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestJSONL(t *testing.T) {
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			rep := r.rep()
			var buf bytes.Buffer
			if err := JSONL(rep, &buf); err != nil {
				t.Fatal(err)
			}
			n := 0
			sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("line %d: %v", n+1, err)
				}
				if m["type"] == JSONLCase {
					for _, k := range []string{"tool", "caseId", "kind", "pointer", "verdict", "flags", "arguments", "startedAt", "durationMs"} {
						if _, ok := m[k]; !ok {
							t.Errorf("line %d has no %q", n+1, k)
						}
					}
				}
				n++
			}
			want := rep.Summary.Cases + rep.Summary.ToolsSkipped
			if n != want {
				t.Errorf("%d lines, want %d", n, want)
			}
			golden(t, buf.Bytes())
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestJSONLWriteError(t *testing.T) {
	if err := JSONL(gradedReport(), failWriter{}); err == nil {
		t.Error("no error from a failing writer")
	}
}

// A case line's startedAt is the run's start plus the case's own offset.
func TestJSONLStartedAtPerCase(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	rep := &report.Report{StartedAt: start, Tools: []report.Tool{{Name: "t", Tested: true, Cases: []report.Case{
		{ID: "t/valid", Kind: "valid", Verdict: report.OK, StartedMs: 12.5},
		{ID: "t/null/q", Kind: "null", Verdict: report.Handled, StartedMs: 1500},
	}}}}
	var b bytes.Buffer
	if err := JSONL(rep, &b); err != nil {
		t.Fatal(err)
	}
	var got []time.Time
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var v struct {
			Type      string    `json:"type"`
			StartedAt time.Time `json:"startedAt"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		if v.Type == "case" {
			got = append(got, v.StartedAt)
		}
	}
	if len(got) != 2 || !got[0].Equal(start.Add(12500*time.Microsecond)) || !got[1].Equal(start.Add(1500*time.Millisecond)) {
		t.Errorf("startedAt %v", got)
	}
}
