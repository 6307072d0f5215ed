package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseBounded: hostile files under the 16 MiB limit are refused, or
// read, without the decoder's quadratic work. The YAML decoder compares a mapping's keys
// pairwise for duplicates: 200,000 env entries (7 MB) took minutes, 50,000
// per-tool aliases 11 s. Billion laughs, deep nesting and big comments
// stay bounded too.
func TestParseBounded(t *testing.T) {
	keys := func(section string, n int, value string) string {
		var b strings.Builder
		b.WriteString(section + ":\n")
		for i := range n {
			fmt.Fprintf(&b, "  k%d: %s\n", i, value)
		}
		return b.String()
	}
	laughs := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, prev := 'b', "a"; i <= 'k'; i++ {
		laughs += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+prev+",", 9) + "*" + prev + "]\n"
		prev = string(i)
	}
	// The biggest mapping allowed, anchored and used as often as the node
	// bound lets it.
	anchored := strings.Replace(keys("per-tool", maxMappingKeys, "{}"), "per-tool:\n", "x: &m\n", 1)
	anchored = "env: {}\n" + anchored
	for i := range 12 {
		anchored += fmt.Sprintf("y%d: *m\n", i)
	}
	// Each is refused before the decoder's quadratic work, saying why
	// (no timing asserted: the refusal is the bound).
	for name, tc := range map[string]struct{ src, want string }{
		"env entries":   {keys("env", 200_000, "v"), "line 2: a mapping of 200000 keys, over 10000"},
		"per-tool":      {keys("per-tool", 50_000, "{timeout: 1s}"), "line 2: a mapping of 50000 keys, over 10000"},
		"aliases":       {"per-tool:\n  t: &t {timeout: 1s}\n" + strings.TrimPrefix(keys("per-tool", 50_000, "*t"), "per-tool:\n"), "a mapping of 50001 keys, over 10000"},
		"laughs":        {laughs, "over 200000 values (aliases counted as what they stand for)"},
		"anchored":      {anchored, "over 200000 values (aliases counted as what they stand for)"},
		"deep sequence": {"cases: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), "exceeded max depth"},
	} {
		if _, err := Parse([]byte(tc.src)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s (%d bytes): err = %v, want it to say %q", name, len(tc.src), err, tc.want)
		}
	}
	// 15 MB of comments is a file like any other.
	if f, err := Parse([]byte("cases: 1\n" + strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 15_000))); err != nil || f.Values["cases"] != 1 {
		t.Errorf("15 MB of comments: %v", err)
	}
	// A big real file still loads: a per-tool key for 5,000 tools.
	if f, err := Parse([]byte(keys("per-tool", 5000, "{timeout: 1s}"))); err != nil || len(f.PerTool) != 5000 {
		t.Errorf("5,000 per-tool keys: %v", err)
	}
}
