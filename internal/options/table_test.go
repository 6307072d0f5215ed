package options

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// goType is the Go type of a value of each kind (FileSection has none).
var goType = map[Kind]reflect.Type{
	Bool: reflect.TypeFor[bool](), Int: reflect.TypeFor[int](), Int64: reflect.TypeFor[int64](),
	Duration: reflect.TypeFor[time.Duration](), Size: reflect.TypeFor[string](), String: reflect.TypeFor[string](),
	Path: reflect.TypeFor[string](), Lines: reflect.TypeFor[[]string](), Names: reflect.TypeFor[[]string](),
	List: reflect.TypeFor[[]string](), Dimensions: reflect.TypeFor[map[string]int](), Command: reflect.TypeFor[[]string](),
}

// Every name of a front end names one setting, and each setting is whole.
func TestTableIsConsistent(t *testing.T) {
	seen := map[string]string{}
	unique := func(o Option, what, name string) {
		t.Helper()
		if name == "" {
			return
		}
		if k, dup := seen[what+" "+name]; dup {
			t.Errorf("%s %q names both %s and %s", what, name, k, o.Key)
		}
		seen[what+" "+name] = o.Key
	}
	for _, o := range All() {
		unique(o, "key", o.Key)
		unique(o, "flag", o.Flag.Name)
		unique(o, "flag", o.Flag.Short)
		unique(o, "input", o.Input.Name)
		unique(o, "config key", o.Config)
		unique(o, "parameter", o.Param.Name)
		for _, f := range o.Fields {
			unique(o, "engine field", f)
		}
		if o.Key == "" || (o.Flag.Name == "" && o.Input.Name == "" && o.Config == "" && o.Param.Name == "") {
			t.Errorf("%q: a setting no front end has", o.Key)
		}
		if o.Default != nil && reflect.TypeOf(o.Default) != goType[o.Kind] {
			t.Errorf("%s: default %#v is not a %v", o.Key, o.Default, goType[o.Kind])
		}
		for _, v := range []any{o.Param.Default, o.Param.Max} {
			if v != nil && reflect.TypeOf(v) != goType[o.Kind] {
				t.Errorf("%s: parameter default or maximum %#v is not a %v", o.Key, v, goType[o.Kind])
			}
		}
		if o.Range != nil && o.Kind != Int && o.Kind != Size && o.Kind != Dimensions {
			t.Errorf("%s: a range on a %v", o.Key, goType[o.Kind])
		}
		if s, ok := o.Default.(string); ok && o.Values != nil && !slices.Contains(o.Values, s) {
			t.Errorf("%s: default %q is not one of %v", o.Key, s, o.Values)
		}
		if f := o.Flag; f.Name != "" {
			if !slices.Contains(Sections, f.Section) || f.Help == "" {
				t.Errorf("%s: flag --%s has section %q and help %q", o.Key, f.Name, f.Section, f.Help)
			}
			if (f.Arg == "") != (o.Kind == Bool) || (f.Negated && o.Kind != Bool) {
				t.Errorf("%s: flag --%s takes %q, yet the setting is a %v (negated %v)", o.Key, f.Name, f.Arg, goType[o.Kind], f.Negated)
			}
		}
		if o.Kind == FileSection && (o.Flag.Name != "" || o.Input.Name != "" || o.Param.Name != "" || o.Config == "") {
			t.Errorf("%s: a section of the config file is in the config file alone", o.Key)
		}
	}
	var inputs []string
	for _, o := range All() {
		if o.Input.Name != "" {
			inputs = append(inputs, o.Input.Name)
		}
	}
	order := InputNames()
	slices.Sort(inputs)
	slices.Sort(order)
	if !slices.Equal(inputs, order) {
		t.Errorf("the order of the Action's inputs lists %v; the table has %v", order, inputs)
	}
}

// Fields name fields of engine.Config, and a setting that fills a field
// the engine bounds takes the engine's range: the front ends and
// engine.Config.Validate hold it to the same bounds.
func TestFieldsAndRangesAreTheEngines(t *testing.T) {
	config := reflect.TypeFor[engine.Config]()
	for _, o := range All() {
		for _, f := range o.Fields {
			if _, ok := config.FieldByName(f); !ok {
				t.Errorf("%s: engine.Config has no field %s", o.Key, f)
			}
			if r, ok := engine.RangeOf(f); ok && (o.Range == nil || *o.Range != r) {
				t.Errorf("%s: range %v, but the engine holds %s to %+v", o.Key, o.Range, f, r)
			}
		}
	}
}

// Apply sets the one field a setting names, with the value it is given.
func TestApplySetsTheField(t *testing.T) {
	samples := map[Kind][2]any{
		Bool: {true, false}, Int: {5, 7}, Int64: {int64(5), int64(7)},
		Duration: {time.Second, 2 * time.Second}, Size: {1 << 20, 2 << 20}, String: {"a", "b"}, Path: {"a", "b"},
		Lines: {[]string{"a"}, []string{"b"}},
	}
	for _, o := range All() {
		if o.Apply == nil {
			continue
		}
		s, ok := samples[o.Kind]
		if !ok || len(o.Fields) != 1 {
			t.Errorf("%s: applies a %v to %v", o.Key, goType[o.Kind], o.Fields)
			continue
		}
		var a, b engine.Config
		o.Apply(&a, s[0])
		o.Apply(&b, s[1])
		if reflect.DeepEqual(a, b) {
			t.Errorf("%s: %v and %v set the same config", o.Key, s[0], s[1])
		}
		fa, fb := reflect.ValueOf(a).FieldByName(o.Fields[0]), reflect.ValueOf(b).FieldByName(o.Fields[0])
		if reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			t.Errorf("%s: does not set %s", o.Key, o.Fields[0])
		}
	}
}

func TestLookups(t *testing.T) {
	for _, tc := range []struct {
		find func(string) (Option, bool)
		name string
		key  string
	}{
		{ByFlag, "no-box", "box"}, {ByFlag, "o", "output"}, {ByInput, "working-directory", "cwd"},
		{ByInput, "secrets", "secret"}, {ByConfig, "secrets", "secret"}, {ByParam, "timeout_seconds", "timeout"},
		{ByField, "ToolTimeouts", "per-tool"}, {Lookup, "concurrency", "concurrency"},
	} {
		if o, ok := tc.find(tc.name); !ok || o.Key != tc.key {
			t.Errorf("lookup of %q: %q, %v; want %q", tc.name, o.Key, ok, tc.key)
		}
	}
	for _, find := range []func(string) (Option, bool){Lookup, ByFlag, ByInput, ByConfig, ByParam, ByField} {
		if o, ok := find(""); ok {
			t.Errorf("the empty name finds %q", o.Key)
		}
	}
	if o, _ := Lookup("max-response"); o.DefaultText() != "4MiB" {
		t.Errorf("max-response default %q", o.DefaultText())
	}
	if o, _ := Lookup("startup-timeout"); o.DefaultText() != "60s" {
		t.Errorf("startup-timeout default %q", o.DefaultText())
	}
	if o, _ := Lookup("output"); o.Flag.Spec() != "-o, --output FILE" {
		t.Errorf("--output spec %q", o.Flag.Spec())
	}
}
