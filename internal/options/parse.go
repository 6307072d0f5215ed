package options

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSeconds reads a duration as a Go duration ("30s", "1m") or plain
// seconds ("30", "2.5"): from a millisecond to a year.
func ParseSeconds(v string) (time.Duration, error) {
	var d time.Duration
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 {
			return 0, errors.New("must be positive")
		}
		if f > maxDuration.Seconds() {
			return 0, errors.New("want at most a year")
		}
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(v); err != nil {
		return 0, errors.New("want seconds or a duration like 30s")
	}
	switch {
	case d <= 0:
		return 0, errors.New("must be positive")
	case d < time.Millisecond:
		return 0, errors.New("want at least 1ms")
	case d > maxDuration:
		return 0, errors.New("want at most a year")
	}
	return d, nil
}

// maxDuration bounds a timeout: anything longer is a typo.
const maxDuration = 365 * 24 * time.Hour

// ParseSize reads a byte count, plain ("65536") or with a unit: KiB, MiB,
// GiB (K, M, G, KB, MB and GB are read as the same binary units).
func ParseSize(v string) (int, error) {
	t := strings.TrimSpace(v)
	shift := 0
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"KIB", 10}, {"MIB", 20}, {"GIB", 30}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, shift = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.shift
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*float64(int64(1)<<shift) > 1<<40 {
		return 0, fmt.Errorf("want a size like 4MiB, 512KiB or 65536")
	}
	return int(f * float64(int64(1)<<shift)), nil
}

// SizeText writes n bytes as a Size is written: in the largest of GiB,
// MiB and KiB that divides it, else plain.
func SizeText(n int) string {
	for _, u := range []struct {
		unit  string
		shift int
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.unit)
		}
	}
	return strconv.Itoa(n)
}
