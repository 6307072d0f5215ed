package gate

import (
	"slices"
	"time"
)

// history is one tool's recent answers: a ring of at most cap(durs) samples
// of duration and size, and counters of every call.
type history struct {
	durs   []time.Duration
	sizes  []int
	next   int // where the next sample goes once the ring is full
	calls  uint64
	errors uint64
}

// add records one answered call, overwriting the oldest once the ring holds
// window samples.
func (h *history) add(d time.Duration, size, window int) {
	if len(h.durs) < window {
		h.durs = append(h.durs, d)
		h.sizes = append(h.sizes, size)
		return
	}
	h.durs[h.next], h.sizes[h.next] = d, size
	h.next = (h.next + 1) % window
}

// medians are the median duration and size of the samples; zero when there
// are none.
func (h *history) medians() (time.Duration, float64) {
	if len(h.durs) == 0 {
		return 0, 0
	}
	return time.Duration(median(h.durs)), median(h.sizes)
}

// median of xs as a float64 (the mean of the middle two for an even count);
// xs is not modified.
func median[T time.Duration | int](xs []T) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return float64(s[m])
	}
	return (float64(s[m-1]) + float64(s[m])) / 2
}
