package options

import (
	"reflect"
	"slices"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// libraryOnly are the fields of engine.Config no front end sets from a
// setting of the table: the front ends fill them from their own state, or
// only a library caller has use for them.
var libraryOnly = map[string]string{
	"TemporaryProgram": "set by the demo command for its own server",
	"OwnSecrets":       "the front ends' own tokens, read from their environment",
	"ToolsOnlyNarrow":  "set by mcp-fuzz serve's audit tool",
	"NotReadOnlyHint":  "a skip reason's wording, per front end",
	"ToolsFrom":        "a skip reason's wording, per front end",
	"SkipToolsFrom":    "a skip reason's wording, per front end",
	"Learned":          "read from a recorded report by replay",
	"LookupEnv":        "the caller's environment",
	"Progress":         "the caller's progress callback",
	"Listed":           "the caller's callback of a static audit",
	"Version":          "mcp-fuzz's own version",
	"MaxReconnects":    "a library bound; the front ends keep the default",
}

// mergedByAudit are the settings with engine fields that package audit
// merges itself instead of through Apply (lists that add up, the bearer
// token, the per-tool and lifecycle maps).
var mergedByAudit = []string{"command", "bearer", "env", "pass-env", "secret", "tools", "skip-tools", "per-tool", "lifecycle"}

// A new engine setting cannot be forgotten by the front ends: every field
// of engine.Config is a row's (or named here as the library's alone), and
// a row that names fields either applies them or is merged by audit.
func TestEveryConfigFieldHasARow(t *testing.T) {
	t.Parallel()
	named := map[string]bool{}
	for _, o := range All() {
		for _, f := range o.Fields {
			named[f] = true
		}
		if len(o.Fields) > 0 && o.Apply == nil && !slices.Contains(mergedByAudit, o.Key) {
			t.Errorf("%s names %v but has no Apply, and audit does not merge it: the value reaches no engine setting", o.Key, o.Fields)
		}
	}
	typ := reflect.TypeFor[engine.Config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() || named[f.Name] {
			continue
		}
		if _, ok := libraryOnly[f.Name]; !ok {
			t.Errorf("engine.Config.%s has no row in the option table: add one (or name it in libraryOnly, with why)", f.Name)
		}
	}
}
