package oracle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A validator decodes the whole instance and may report an error per
// element: structuredContent over maxValidatedOutput is not handed to it.
func TestHugeStructuredContentIsNotValidated(t *testing.T) {
	called := false
	validate := func(json.RawMessage) error { called = true; return nil }
	big := `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[` + strings.Repeat("0,", 40000) + `0]}}`
	j := judgeValid(Outcome{Result: json.RawMessage(big)}, false, validate, same)
	if called || j.Verdict != report.OK || !strings.Contains(j.Detail, "not checked") {
		t.Errorf("validator called %v, verdict %s (%s)", called, j.Verdict, j.Detail)
	}
	small := `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[0]}}`
	judgeValid(Outcome{Result: json.RawMessage(small)}, false, validate, same)
	if !called {
		t.Error("a small structuredContent was not validated")
	}
}
