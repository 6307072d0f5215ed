package suggest

import (
	"fmt"
	"slices"
	"strings"
)

// Max is how many names [Nearest] returns at most.
const Max = 3

// maxRunes bounds the part of a name compared: names are server input.
const maxRunes = 256

// Nearest returns up to [Max] of names near to s, nearest first (ties in
// name order): those within an edit distance (Levenshtein, a swap of
// adjacent runes counting as one edit, over runes, ignoring case) of a
// third of s's length, at least 2. Duplicates and s itself are left out.
func Nearest(s string, names []string) []string {
	a := runes(s)
	limit := max(2, len(a)/3)
	type near struct {
		name string
		d    int
	}
	var found []near
	for _, n := range names {
		if n == s || slices.ContainsFunc(found, func(f near) bool { return f.name == n }) {
			continue
		}
		b := runes(n)
		if abs(len(a)-len(b)) > limit {
			continue
		}
		if d := distance(a, b); d <= limit {
			found = append(found, near{n, d})
		}
	}
	slices.SortFunc(found, func(x, y near) int {
		if x.d != y.d {
			return x.d - y.d
		}
		return strings.Compare(x.name, y.name)
	})
	out := []string{}
	for _, f := range found[:min(Max, len(found))] {
		out = append(out, f.name)
	}
	return out
}

// Hint is "; did you mean "a", "b" or "c"?" for the names near s, or "".
func Hint(s string, names []string) string {
	near := Nearest(s, names)
	if len(near) == 0 {
		return ""
	}
	q := make([]string, len(near))
	for i, n := range near {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return "; did you mean " + q[0] + "?"
	}
	return "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}

func runes(s string) []rune {
	r := []rune(strings.ToLower(s))
	return r[:min(len(r), maxRunes)]
}

// distance is the optimal string alignment distance between a and b: the
// Levenshtein distance, with a swap of two adjacent runes ("lsit" for
// "list", the commonest typo) counting as one edit rather than two.
func distance(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
