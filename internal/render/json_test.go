package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The JSON report is laid out for size and reading: top-level members on
// their own lines, one line per tool member, case, finding and lint entry.
func TestJSON(t *testing.T) {
	for _, tc := range reports {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.rep()
			rep.Normalize()
			got, err := JSON(rep)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, got)
			assertSameJSON(t, got, rep)
			if err := report.ValidateJSON(got); err != nil {
				t.Errorf("the JSON report does not match its schema: %v", err)
			}
			lines := strings.Split(string(got), "\n")
			for _, c := range rep.Tools[0].Cases {
				b, _ := json.Marshal(c)
				if !containsLine(lines, "        "+string(b)) {
					t.Errorf("case %s is not on a line of its own", c.ID)
				}
			}
			for _, f := range rep.Findings {
				b, _ := json.Marshal(f)
				if !containsLine(lines, "    "+string(b)) {
					t.Errorf("finding %s is not on a line of its own", f.ID)
				}
			}
		})
	}
}

func TestMergedJSON(t *testing.T) {
	reps := []*report.Report{gradedReport(), ungradedReport()}
	got, err := MergedJSON(reps)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, got, reps)
	if !bytes.HasPrefix(got, []byte("[\n  {\n    \"schemaVersion\": ")) {
		t.Errorf("merged reports are not laid out one member a line: %.60q", got)
	}
}

// TestLayoutKeepsValues lays out JSON full of the characters the layout
// scans for, inside strings and keys.
func TestLayoutKeepsValues(t *testing.T) {
	for _, src := range []string{
		`{}`, `[]`, `{"a":[]}`, `{"a":{}}`, `[[],{},[{}]]`, `"x"`, `1`,
		`{"tools":[{"cases":[{"a":"{[,:]}\"\\","b":[1,2]},{}],"name":"t\"{"}],"findings":[],"lint":[{"x":{"y":[]}}]}`,
		`{"a\"b":{"tools":[1]},"tools":[{"cases":[{"k":"\u2028"}]}]}`,
	} {
		out := layout([]byte(src), reportExpanded)
		var compact bytes.Buffer
		if err := json.Compact(&compact, out); err != nil {
			t.Errorf("layout(%s) is not JSON: %v\n%s", src, err, out)
			continue
		}
		if compact.String() != src {
			t.Errorf("layout(%s) changed the value:\n%s", src, out)
		}
	}
}

func assertSameJSON(t *testing.T, got []byte, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, got); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	// The renderers escape characters encoding/json leaves raw; compare
	// the decoded values.
	var a, b any
	_ = json.Unmarshal(compact.Bytes(), &a)
	_ = json.Unmarshal(want, &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Error("the laid-out JSON decodes to another value than the report")
	}
}

func containsLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.TrimSuffix(l, ",") == prefix {
			return true
		}
	}
	return false
}
