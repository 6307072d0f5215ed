package engine

import (
	"path/filepath"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/security"
)

// A canary inside a directory the server was given is not looked for; the
// scratch area itself holds none.
func TestCanariesInGivenDirectoriesProveNothing(t *testing.T) {
	t.Parallel()
	a, err := security.NewArea(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	env := security.Env{Area: a, Base: a.Scratch}
	for _, tc := range []struct {
		given []string
		want  int
	}{
		{nil, 4},
		{[]string{a.Scratch}, 4},
		{[]string{a.Run}, 1}, // the temp canary lies beside the run's directory
		{[]string{filepath.Dir(a.Run)}, 0},
	} {
		got := withoutGiven(env, tc.given)
		if n := len(got.Area.Canaries); n != tc.want {
			t.Errorf("given %v: %d canaries looked for, want %d", tc.given, n, tc.want)
		}
		if len(a.Canaries) != 4 {
			t.Fatalf("withoutGiven changed the area's own list: %d", len(a.Canaries))
		}
	}
}
