package render

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestBadgeSVG(t *testing.T) {
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			out := BadgeSVG(r.rep())
			if err := xml.Unmarshal(out, new(struct{})); err != nil {
				t.Fatalf("not valid XML: %v", err)
			}
			if s := string(out); strings.Contains(s, "href") || strings.Contains(s, "@import") || strings.Contains(s, "<image") {
				t.Error("badge references something outside itself")
			}
			golden(t, out)
		})
	}
}

func TestBadgeColours(t *testing.T) {
	for grade, colour := range map[string]string{"A": "brightgreen", "B": "green", "C": "yellow", "D": "orange", "F": "red"} {
		rep := &report.Report{Graded: true, Score: ptr(50), Grade: ptr(grade)}
		if got, want := BadgeURL(rep), "https://img.shields.io/badge/mcp--fuzz-"+grade+"%2050-"+colour; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
		if got := GradeColour(grade); got != colour {
			t.Errorf("GradeColour(%s) = %s, want %s", grade, got, colour)
		}
		if !strings.Contains(string(BadgeSVG(rep)), svgColours[colour]) {
			t.Errorf("SVG for %s lacks %s", grade, svgColours[colour])
		}
	}
	for _, grade := range []string{"", "E", "a", "A+"} {
		if got := GradeColour(grade); got != "lightgrey" {
			t.Errorf("GradeColour(%q) = %s, want lightgrey", grade, got)
		}
	}
	if got := shieldsPart("a-b_c d"); got != "a--b__c%20d" {
		t.Errorf("shieldsPart = %s", got)
	}
}
