package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"testing"
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
