package textcut

import "testing"

func TestUTF8(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"}, // é is two bytes: not split
		{"aé", 3, "aé"},
		{"", 0, ""},
	} {
		if got := UTF8(tc.s, tc.n); got != tc.want {
			t.Errorf("UTF8(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"a  b\n\tc", 10, "a b c"},
		{"héllo world", 5, "héllo…"},
		{"short", 5, "short"},
	} {
		if got := Excerpt(tc.s, tc.n); got != tc.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
