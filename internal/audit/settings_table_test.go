package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// twoValues are two values of o in its range, as Settings give them and as
// a config file writes them.
func twoValues(t *testing.T, o options.Option) (given, inFile any, yaml string, ok bool) {
	switch o.Kind {
	case options.Bool:
		return true, false, "false", true
	case options.Int:
		a := 5
		if o.Range != nil {
			a = o.Range.Min
		}
		return a, a + 1, fmt.Sprint(a + 1), true
	case options.Int64:
		return int64(5), int64(6), "6", true
	case options.Duration:
		return 2 * time.Second, 3 * time.Second, "3s", true
	case options.Size:
		return "64KiB", "128KiB", "128KiB", true
	case options.Path:
		a, b := t.TempDir(), t.TempDir()
		return a, b, b, true
	case options.String:
		if len(o.Values) > 1 {
			return o.Values[0], o.Values[1], o.Values[1], true
		}
		if o.Default != nil {
			return o.Default, o.Default, fmt.Sprint(o.Default), true
		}
	}
	return nil, nil, "", false
}

// field is what Apply makes of v in the field the setting fills.
func field(o options.Option, v any) any {
	if s, ok := v.(string); ok && o.Kind == options.Size {
		v, _ = options.ParseSize(s)
	}
	var c engine.Config
	o.Apply(&c, v)
	return reflect.ValueOf(c).FieldByName(o.Fields[0]).Interface()
}

// Every engine setting of the table merges the same way: the front end's
// value over the config file's over the default, and each lands in its
// field of engine.Config.
func TestEveryEngineSettingMerges(t *testing.T) {
	dir := t.TempDir()
	for i, o := range options.All() {
		if o.Apply == nil || o.Config == "" {
			continue
		}
		given, inFile, yaml, ok := twoValues(t, o)
		if !ok {
			t.Errorf("%s: no sample values of its kind", o.Key)
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("c%d.yml", i))
		if err := os.WriteFile(file, []byte(o.Config+": "+yaml+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name   string
			st     Settings
			config string
			value  any
		}{
			{"given", Settings{Given: options.Values{o.Key: given}}, file, given},
			{"file", Settings{}, file, inFile},
			{"default", Settings{}, os.DevNull, o.Default},
		} {
			if tc.value == nil {
				continue
			}
			tc.st.Command = []string{"srv"}
			tc.st.Given.Set("config", tc.config)
			if o.Key == "sequential" {
				tc.st.Given.Set("include-destructive", true) // which it needs
			}
			got, err := Build(tc.st, FlagNames, noEnv)
			if err != nil {
				t.Errorf("%s from the %s: %v", o.Key, tc.name, err)
				continue
			}
			want := field(o, tc.value)
			if v := reflect.ValueOf(got.Engine).FieldByName(o.Fields[0]).Interface(); !reflect.DeepEqual(v, want) {
				t.Errorf("%s from the %s: %s = %#v, want %#v", o.Key, tc.name, o.Fields[0], v, want)
			}
		}
	}
}

// A value out of a setting's range is refused naming the setting as its
// source wrote it, with the table's range, before anything starts.
func TestOutOfRangeNamesTheSource(t *testing.T) {
	dir := t.TempDir()
	for i, o := range options.All() {
		if o.Range == nil || o.Kind != options.Int {
			continue
		}
		v := o.Range.Min - 1
		if v == 0 && o.Range.Zero != "" {
			v = -1
		}
		why := o.Range.Check(v)
		if _, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{o.Key: v, "config": os.DevNull}}, inputName, noEnv); err == nil || err.Error() != fmt.Sprintf("input %s %d: %s", o.Key, v, why) {
			t.Errorf("%s %d given: %v, want the input named", o.Key, v, err)
		}
		if o.Config == "" {
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("c%d.yml", i))
		if err := os.WriteFile(file, []byte(fmt.Sprintf("%s: %d\n", o.Config, v)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Build(Settings{Command: []string{"srv"}, Given: options.Values{"config": file}}, inputName, noEnv); err == nil || err.Error() != fmt.Sprintf("config %s: %d: %s", o.Config, v, why) {
			t.Errorf("%s %d in the file: %v, want the key named", o.Key, v, err)
		}
	}
}
