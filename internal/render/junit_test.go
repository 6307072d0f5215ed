package render

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestJUnit(t *testing.T) {
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			rep := r.rep()
			out, err := JUnit(rep)
			if err != nil {
				t.Fatal(err)
			}
			var got junitSuites
			if err := xml.Unmarshal(out, &got); err != nil {
				t.Fatalf("not valid XML: %v", err)
			}
			if strings.Contains(string(out), "\x1b") {
				t.Error("ESC in XML")
			}
			// One suite per tool, plus "server" for findings of no case.
			wantTests, wantSuites := 0, len(rep.Tools)
			for _, f := range rep.Findings {
				if f.CaseID == "" {
					wantTests++
					wantSuites = len(rep.Tools) + 1
				}
			}
			for _, tool := range rep.Tools {
				if tool.Tested {
					wantTests += len(tool.Cases)
				} else {
					wantTests++
				}
			}
			if got.Tests != wantTests || len(got.Suites) != wantSuites {
				t.Errorf("tests = %d, suites = %d; want %d, %d", got.Tests, len(got.Suites), wantTests, wantSuites)
			}
			golden(t, out)
		})
	}
}

func TestJUnitCounts(t *testing.T) {
	out, err := JUnit(gradedReport())
	if err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	// crash, hang, protocol_violation, accepted (twice), output_violation,
	// leak, and the server's protocol violation outside any call.
	if got.Failures != 8 {
		t.Errorf("failures = %d, want 8", got.Failures)
	}
	// not_run, generator_gap and two untested tools.
	if got.Skipped != 4 {
		t.Errorf("skipped = %d, want 4", got.Skipped)
	}
}
