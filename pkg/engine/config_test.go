package engine

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRangeCheck(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		r    Range
		v    int
		want string
	}{
		{Range{Min: 1, Max: 20}, 1, ""},
		{Range{Min: 1, Max: 20}, 20, ""},
		{Range{Min: 1, Max: 20}, 0, "want 1 to 20"},
		{Range{Min: 1, Max: 20}, 21, "want 1 to 20"},
		{Range{Min: 2, Max: 16, Zero: "none"}, 0, ""},
		{Range{Min: 2, Max: 16, Zero: "none"}, 1, "want 2 to 16, or 0 for none"},
		{Range{Min: 2, Max: 16, Zero: "none"}, -1, "want 2 to 16, or 0 for none"},
		{Range{Min: 1}, 0, "must be positive"},
		{Range{Min: 1}, 1 << 40, ""},
		{Range{Min: 0, Zero: "no limit"}, -3, "must be 0 (no limit) or more"},
		{Range{Min: 0, Zero: "no limit"}, 0, ""},
		{Range{Min: 5}, 4, "must be 5 or more"},
		{Range{Min: 5, Zero: "off"}, 4, "must be 5 or more, or 0 for off"},
		{Range{Min: 1, Zero: "off"}, -1, "must be 1 or more, or 0 for off"},
		{Range{Min: 0, Max: 500, Zero: "all"}, 501, "want 0 to 500"},
		{Range{Min: 0, Max: 500, Zero: "all"}, 0, ""},
		{Range{Min: 64 << 10, Max: 1 << 30, Bytes: true}, 1 << 10, "want 64KiB to 1GiB"},
		{Range{Min: 3 << 20, Max: 5000, Bytes: true}, 1, "want 3MiB to 5000"},
	} {
		if got := tc.r.Check(tc.v); got != tc.want {
			t.Errorf("%+v.Check(%d) = %q, want %q", tc.r, tc.v, got, tc.want)
		}
	}
}

// Validate holds the bounded fields to the ranges RangeOf gives, names the
// field, and takes each field's zero value as its default.
func TestValidateUsesTheRanges(t *testing.T) {
	parallel(t)
	base := Config{Command: []string{"srv"}}
	if err := base.Validate(); err != nil {
		t.Fatalf("zero values: %v", err)
	}
	// Every range, and every field it names: a range added to the list
	// is checked here without a line of its own.
	for _, field := range slices.Sorted(maps.Keys(ranges)) {
		tc := struct {
			field string
			set   func(*Config, int)
		}{field, func(c *Config, v int) { reflect.ValueOf(c).Elem().FieldByName(field).SetInt(int64(v)) }}
		if f, ok := reflect.TypeOf(base).FieldByName(field); !ok || f.Type.Kind() != reflect.Int {
			t.Errorf("ranges names %s, which is no int field of Config", field)
			continue
		}
		r, ok := RangeOf(tc.field)
		if !ok {
			t.Errorf("RangeOf(%s): no range", tc.field)
			continue
		}
		for _, v := range []int{r.Min - 1, -1, r.Max + 1} {
			if v == 0 || (v == r.Max+1 && r.Max == 0) {
				continue
			}
			c := base
			tc.set(&c, v)
			err := c.Validate()
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), r.Check(v)) {
				t.Errorf("%s %d: %v, want a ConfigError naming it and saying %q", tc.field, v, err, r.Check(v))
			}
		}
		c := base
		tc.set(&c, r.Min)
		if err := c.Validate(); err != nil {
			t.Errorf("%s %d (its minimum): %v", tc.field, r.Min, err)
		}
	}
	if _, ok := RangeOf("Seed"); ok {
		t.Error("RangeOf(Seed): Validate does not bound it")
	}
}
