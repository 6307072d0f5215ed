package casegen

import (
	"os"
	"strconv"
	"testing"
)

// searchIssues is a realistic 10-property tool schema, shaped like the ones
// the TypeScript SDK emits (zod -> JSON Schema, draft-07); the engine's
// benchmarks use the same file.
var searchIssues = readSchema("../../testdata/schemas/search_issues.json")

func readSchema(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BenchmarkGenerate measures Compile plus Generate with the default budget of
// 40 cases (every kept case is validated; the 10,000-item oversize array
// dominates), and with budget 5 (the valid call and the 4 missing_required cases only).
func BenchmarkGenerate(b *testing.B) {
	for _, bc := range []struct {
		name   string
		budget int
		cases  int
	}{{"budget=40", 40, 40}, {"budget=5", 5, 5}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, _ := Compile([]byte(searchIssues))
				p := Generate("search_issues", s, Options{Budget: bc.budget})
				if p.GeneratorGap != "" || len(p.Cases) != bc.cases {
					b.Fatalf("gap %q, %d cases", p.GeneratorGap, len(p.Cases))
				}
			}
		})
	}
}

// BenchmarkGenerateCompiled measures Generate alone on a compiled schema.
func BenchmarkGenerateCompiled(b *testing.B) {
	s := mustCompile(b, searchIssues)
	b.ReportAllocs()
	for b.Loop() {
		Generate("search_issues", s, Options{Budget: 40})
	}
}

// BenchmarkGenerateHugeRequired measures Generate alone (compiled outside
// the loop) for a tool with 100,000 required string properties and the
// default budget: the plan is the valid call (a generator gap) and a window
// of 39 missing_required cases of ~160 KB each.
func BenchmarkGenerateHugeRequired(b *testing.B) {
	s, _ := Compile([]byte(wideRequired(100000)))
	b.ReportAllocs()
	for b.Loop() {
		if p := Generate("t", s, Options{Budget: 40}); len(p.Cases) != 40 {
			b.Fatalf("%d cases", len(p.Cases))
		}
	}
}

// BenchmarkCompileHugeRequired measures Compile alone for the same schema
// (it is too large for the validator, so this is decoding, indexing and lint).
func BenchmarkCompileHugeRequired(b *testing.B) {
	raw := []byte(wideRequired(100000))
	b.ReportAllocs()
	for b.Loop() {
		Compile(raw)
	}
}

// trivialTool is the smallest realistic schema: one required string.
const trivialTool = `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`

// BenchmarkThousandTools measures Compile plus Generate for 1,000 tools with
// the trivial schema, per op: what discovery of a large server costs.
func BenchmarkThousandTools(b *testing.B) {
	names := make([]string, 1000)
	for i := range names {
		names[i] = "tool_" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, name := range names {
			s, _ := Compile([]byte(trivialTool))
			if p := Generate(name, s, Options{Budget: 40}); p.GeneratorGap != "" {
				b.Fatal(p.GeneratorGap)
			}
		}
	}
}

// BenchmarkRegenerate measures rebuilding one case (what replay does) against
// generating the whole plan (BenchmarkGenerateCompiled).
func BenchmarkRegenerate(b *testing.B) {
	s := mustCompile(b, searchIssues)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Regenerate("search_issues", s, Options{Budget: 40}, "search_issues/missing_required/owner"); !ok {
			b.Fatal("not regenerated")
		}
	}
}

func TestBenchmarkSchemaIsValid(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, searchIssues)
	p := Generate("search_issues", s, Options{})
	checkPlanShape(t, p)
	if p.GeneratorGap != "" {
		t.Fatalf("gap: %s", p.GeneratorGap)
	}
	t.Logf("%d cases without a budget; valid: %s", len(p.Cases), p.Cases[0].Arguments)
}
