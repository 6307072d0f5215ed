package optionstest

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

func TestMismatches(t *testing.T) {
	repeat := Doc{Default: "3", Range: &engine.Range{Min: 1, Max: 20}}
	size := Doc{Default: "4MiB", Range: &engine.Range{Min: 64 << 10, Max: 1 << 30, Bytes: true}}
	for _, tc := range []struct {
		d    Doc
		text string
		bad  int
	}{
		{repeat, "time it N times (1 to 20, default 3)", 0},
		{repeat, "time it N times (1 to 20, default\n4)", 1},
		{repeat, "time it N times (1 to 30, default 3)", 1},
		{repeat, "no word of either", 0},
		{size, "largest answer read, 64KiB to 1GiB (default 4MiB; units KiB", 0},
		{size, "largest answer read, 64KiB to 2GiB (default 4MiB; units KiB", 1},
		{Doc{Default: "auto"}, "`auto` (default: discover first), `modern`", 0},
		{Doc{Default: "auto"}, "`modern` (default: discover first), `auto`", 1},
		{Doc{Default: "true"}, "true (default) starts it", 0},
		{Doc{Default: "default"}, "default | aggressive (adds probe strings)", 0},
		{Doc{Default: "0"}, "(default 0: none; 60s budget in all)", 0},
		{Doc{}, "(default: job id plus target)", 0},
		{Doc{Default: "40", Max: "200"}, "per-tool case budget (default 40, at most 200)", 0},
		{Doc{Default: "40", Max: "200"}, "per-tool case budget (default 40, at most 100)", 1},
		{Doc{Default: "1"}, "text: every case, 80 to 120 columns", 0},
	} {
		if got := tc.d.Mismatches(tc.text); len(got) != tc.bad {
			t.Errorf("%+v in %q: %q, want %d mismatches", tc.d, tc.text, got, tc.bad)
		}
	}
}
