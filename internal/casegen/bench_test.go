package casegen

import "testing"

// searchIssues is a realistic 10-property tool schema, shaped like the ones
// the TypeScript SDK emits (zod -> JSON Schema, draft-07).
const searchIssues = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,
 "required":["owner","repo","query"],
 "properties":{
  "owner":{"type":"string","description":"Repository owner","minLength":1,"maxLength":39,"pattern":"^[A-Za-z0-9-]+$"},
  "repo":{"type":"string","description":"Repository name","minLength":1,"maxLength":100},
  "query":{"type":"string","description":"Search text","minLength":1},
  "state":{"type":"string","enum":["open","closed","all"],"default":"open"},
  "labels":{"type":"array","items":{"type":"string"},"maxItems":20,"uniqueItems":true},
  "since":{"type":"string","format":"date-time"},
  "assignee":{"type":"object","properties":{"login":{"type":"string"},"id":{"type":"integer","minimum":1}},"required":["login"],"additionalProperties":false},
  "page":{"type":"integer","minimum":1,"default":1},
  "per_page":{"type":"integer","minimum":1,"maximum":100,"default":30},
  "include_body":{"type":"boolean","default":false}}}`

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
	for b.Loop() {
		Generate("search_issues", s, Options{Budget: 40})
	}
}

func TestBenchmarkSchemaIsValid(t *testing.T) {
	s := mustCompile(t, searchIssues)
	p := Generate("search_issues", s, Options{})
	checkPlanShape(t, p)
	if p.GeneratorGap != "" {
		t.Fatalf("gap: %s", p.GeneratorGap)
	}
	t.Logf("%d cases without a budget; valid: %s", len(p.Cases), p.Cases[0].Arguments)
}
