package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"get_order", "get_ordr", 1}, {"flaw", "lawn", 2}, {"héllo", "hello", 1},
		// a swap of adjacent runes is one edit, not two
		{"lsit", "list", 1}, {"ab", "ba", 1}, {"ca", "abc", 3}, {"héllo", "ehllo", 2},
	} {
		if got := distance([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	tools := []string{"get_order", "get_orders", "list_orders", "delete_order", "echo", "search", "Search_All"}
	for _, c := range []struct {
		s    string
		want []string
	}{
		{"get_ordr", []string{"get_order", "get_orders"}},
		{"list_order", []string{"list_orders", "get_order"}},
		{"ecoh", []string{"echo"}},     // distance 2 is always allowed
		{"SEARCH", []string{"search"}}, // case is ignored
		{"search_al", []string{"Search_All", "search"}},
		{"zzzzzz", []string{}},                // nothing near
		{"get_order", []string{"get_orders"}}, // s itself is not a suggestion
		{"order", []string{}},
		{"ehco", []string{"echo"}},
	} {
		if got := Nearest(c.s, tools); !slices.Equal(got, c.want) {
			t.Errorf("Nearest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
	// At most Max, nearest first, ties in name order, no duplicates.
	got := Nearest("ab", []string{"ad", "ac", "ab1", "ac", "a", "abcd", "xyz"})
	if want := []string{"a", "ab1", "ac"}; !slices.Equal(got, want) {
		t.Errorf("Nearest(ab) = %q, want %q", got, want)
	}
	// A swapped pair ranks before a name two edits away.
	commands := []string{"demo", "list", "cases", "init", "report", "merge"}
	if got, want := Nearest("lsit", commands), []string{"list", "init"}; !slices.Equal(got, want) {
		t.Errorf("Nearest(lsit) = %q, want %q", got, want)
	}
}

func TestHint(t *testing.T) {
	for _, c := range []struct {
		s     string
		names []string
		want  string
	}{
		{"x", nil, ""},
		{"ecoh", []string{"echo"}, `; did you mean "echo"?`},
		{"ab", []string{"ac", "ad"}, `; did you mean "ac" or "ad"?`},
		{"ab", []string{"ac", "ad", "ae", "af"}, `; did you mean "ac", "ad" or "ae"?`},
	} {
		if got := Hint(c.s, c.names); got != c.want {
			t.Errorf("Hint(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
