package comment

import (
	"strings"
	"testing"
)

// TestDataMarkerControls checks that control characters in a section's
// target (server text) are escaped in the hidden data marker, and that Parse
// still recovers them.
func TestDataMarkerControls(t *testing.T) {
	t.Parallel()
	target := "srv\u009b[31m\x7f\u202egnp.exe\u202c\u2066\u200f\u061c"
	body := Render([]SectionData{{Key: "k", Target: target, Markdown: "details"}})
	data := body[strings.Index(body, dataPrefix):]
	data = data[:strings.Index(data, "\n")]
	if !strings.Contains(data, `srv\u009b[31m\u007f\u202egnp.exe\u202c\u2066\u200f\u061c`) {
		t.Errorf("data marker does not escape the controls: %q", data)
	}
	if strings.ContainsAny(body, "\u009b\x7f\u202e\u202c\u2066\u200f\u061c") {
		t.Errorf("comment body holds a raw control character: %q", body)
	}
	got, ok := Parse(body)
	if !ok || len(got) != 1 || got[0].Target != target {
		t.Fatalf("Parse = %+v, %v; want target %q", got, ok, target)
	}
}
