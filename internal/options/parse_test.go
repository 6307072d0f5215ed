package options

import (
	"testing"
	"time"
)

func TestParseSecondsAndSize(t *testing.T) {
	for in, want := range map[string]time.Duration{"30": 30 * time.Second, "2.5": 2500 * time.Millisecond, "1m": time.Minute} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "-1", "soon", "-5s", "", "1e-12", "1ns", "99999999999999", "9999999h", "NaN", "+Inf"} {
		if _, err := ParseSeconds(bad); err == nil {
			t.Errorf("ParseSeconds(%q) accepted", bad)
		}
	}
	for in, want := range map[string]int{"65536": 65536, "4MiB": 4 << 20, "512 KiB": 512 << 10, "1G": 1 << 30, "1.5k": 1536} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1MiB", "0", "2TiB", "9999GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
	for n, want := range map[int]string{64 << 10: "64KiB", 4 << 20: "4MiB", 1 << 30: "1GiB", 1536: "1536", 3 << 19: "1536KiB"} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(SizeText(n)); err != nil || back != n {
			t.Errorf("ParseSize(SizeText(%d)) = %d, %v", n, back, err)
		}
	}
}
