package engine

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
)

// A listed tool's schemas are compiled once, whoever asks first, and every
// copy of the tool shares them.
func TestToolSchemasAreCompiledOnce(t *testing.T) {
	parallel(t)
	tools, _ := mcptool.Decode(benchTools()[:2])
	in, out := tools[0].Compiled()
	cp := tools[0]
	in2, out2 := cp.Compiled()
	if in == nil || out == nil || in != in2 || out != out2 {
		t.Fatalf("compiled %p %p, then %p %p", in, out, in2, out2)
	}
	if !in.Compiled() || !out.Compiled() {
		t.Fatal("the benchmark schemas do not compile")
	}
	if _, out := tools[1].Compiled(); out != nil {
		t.Errorf("a tool without outputSchema has one: %p", out)
	}
	if tools[0].OutputValidator() == nil || tools[1].OutputValidator() != nil {
		t.Error("output validators")
	}
}
