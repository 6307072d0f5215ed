package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
)

// Every schema problem case generation can report reaches the report with a
// fix hint, unless a rule of Check reports it instead. The codes are read
// from casegen's source, so a new code without a hint fails here.
func TestEverySchemaProblemHasAHint(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "casegen", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("casegen sources: %v", err)
	}
	code := regexp.MustCompile(`(?:Problem\{|\.add\()"([a-z_]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range code.FindAllStringSubmatch(string(src), -1) {
			seen++
			if c := m[1]; reportedByRules[c] == "" && problemHints[c] == "" {
				t.Errorf("schema problem %q (%s) has no hint", c, filepath.Base(f))
			}
		}
	}
	if seen < 15 {
		t.Errorf("found only %d problem codes in casegen: the pattern no longer matches its source", seen)
	}
}

func TestProblemsReportedByRulesNameRules(t *testing.T) {
	for problem, code := range reportedByRules {
		found := false
		for _, r := range rules {
			found = found || r.Code == code
		}
		if !found {
			t.Errorf("problem %q: no rule %q", problem, code)
		}
		if problemHints[problem] != "" {
			t.Errorf("problem %q is reported by rule %q and has a hint of its own", problem, code)
		}
	}
}

func TestSchemaProblems(t *testing.T) {
	s, probs := casegen.Compile(json.RawMessage(`{"type":"string","properties":{"a":{"enum":[]},"b":{"$ref":"https://example.com/b.json"}}}`))
	got := SchemaProblems("t", s)
	var codes []string
	for _, l := range got {
		codes = append(codes, l.Code)
		if l.Tool != "t" || l.Hint == "" || l.Message == "" || !strings.HasPrefix(l.Pointer, "/inputSchema") {
			t.Errorf("finding %+v", l)
		}
	}
	// root_type_not_object and remote_ref are the rules' to report.
	if strings.Join(codes, ",") != "enum_empty" {
		t.Fatalf("codes %v from problems %+v", codes, probs)
	}
	if got[0].Pointer != "/inputSchema/properties/a/enum" || got[0].Severity != casegen.SevWarning {
		t.Errorf("finding %+v", got[0])
	}
}
