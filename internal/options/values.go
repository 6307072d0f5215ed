package options

import "slices"

// Values are settings' values by [Option.Key], each of the Go type of its
// setting's [Kind]. A key that is absent is a setting not given.
type Values map[string]any

// Set gives key the value v, making the map when there is none. An empty
// string or list is no value: it removes key (not given).
func (vs *Values) Set(key string, v any) {
	if empty(v) {
		delete(*vs, key)
		return
	}
	if *vs == nil {
		*vs = Values{}
	}
	(*vs)[key] = v
}

// Value returns the value of key; nil when it was not given, or given as
// an empty string or list.
func (vs Values) Value(key string) any {
	v := vs[key]
	if empty(v) {
		return nil
	}
	return v
}

// Has reports whether key was given (as more than an empty string or
// list).
func (vs Values) Has(key string) bool { return vs.Value(key) != nil }

// empty says whether v is nil, or a string, list or map with nothing in it.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []string:
		return len(v) == 0
	case map[string]int:
		return len(v) == 0
	}
	return false
}

// Get returns the value of key when it was given as a T.
func Get[T any](vs Values, key string) (v T, ok bool) {
	v, ok = vs[key].(T)
	return v, ok
}

// String returns the value of key, a String, Path or Size; "" when it was
// not given.
func (vs Values) String(key string) string {
	s, _ := Get[string](vs, key)
	return s
}

// List returns the value of key, a Lines, Names, List or Command; nil
// when it was not given.
func (vs Values) List(key string) []string {
	l, _ := Get[[]string](vs, key)
	return l
}

// True reports whether key, a Bool, was given as true.
func (vs Values) True(key string) bool {
	b, _ := Get[bool](vs, key)
	return b
}

// Clone returns a copy of vs whose lists are copies too.
func (vs Values) Clone() Values {
	if vs == nil {
		return nil
	}
	out := make(Values, len(vs))
	for k, v := range vs {
		if l, ok := v.([]string); ok {
			v = slices.Clone(l)
		}
		out[k] = v
	}
	return out
}
