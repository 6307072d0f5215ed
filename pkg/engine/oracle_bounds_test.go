package engine

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
	j := judgeValid(outcome{result: json.RawMessage(big)}, false, validate)
	if called || j.verdict != report.OK || !strings.Contains(j.detail, "not checked") {
		t.Errorf("validator called %v, verdict %s (%s)", called, j.verdict, j.detail)
	}
	small := `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[0]}}`
	judgeValid(outcome{result: json.RawMessage(small)}, false, validate)
	if !called {
		t.Error("a small structuredContent was not validated")
	}
}
