package report_test

import (
	"fmt"
	"log"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A script that reads the JSON report of a run (mcp-fuzz -o report.json)
// and gates on what it holds: the grade, and the findings of the worst
// severity, each with the case that reproduces it.
func ExampleReadFile() {
	rep, err := report.ReadFile("../../internal/render/testdata/demo.json")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s: score %d, grade %s\n", rep.Server.Name, rep.Server.Version, *rep.Score, *rep.Grade)
	fmt.Printf("%d cases, %d crashes, %d hangs\n", rep.Summary.Cases, rep.Summary.Crash, rep.Summary.Hang)

	critical := map[string]int{}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityCritical {
			critical[f.Code]++
		}
	}
	for _, c := range report.Codes() { // in the catalogue's order
		if n := critical[c.Name]; n > 0 {
			fmt.Printf("critical %s: %d\n", c.Name, n)
		}
	}
	// Output:
	// mcp-fuzz-demo 1.0.0: score 80, grade D
	// 127 cases, 12 crashes, 2 hangs
	// critical crash: 12
	// critical hang: 2
	// critical protocol_violation: 11
	// critical leak: 10
}
