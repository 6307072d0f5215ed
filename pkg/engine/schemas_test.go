package engine

import "testing"

// A listed tool's schemas are compiled once, whoever asks first, and every
// copy of the tool shares them.
func TestToolSchemasAreCompiledOnce(t *testing.T) {
	parallel(t)
	tools, _ := decodeTools(benchTools()[:2])
	in, out := tools[0].compiled()
	cp := tools[0]
	in2, out2 := cp.compiled()
	if in == nil || out == nil || in != in2 || out != out2 {
		t.Fatalf("compiled %p %p, then %p %p", in, out, in2, out2)
	}
	if !in.Compiled() || !out.Compiled() {
		t.Fatal("the benchmark schemas do not compile")
	}
	if _, out := tools[1].compiled(); out != nil {
		t.Errorf("a tool without outputSchema has one: %p", out)
	}
	if tools[0].outputValidator() == nil || tools[1].outputValidator() != nil {
		t.Error("output validators")
	}
}
