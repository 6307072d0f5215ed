package casegen

// applyBudget chooses which specs to keep when there are more than budget,
// never more than budget: the valid case (index 0) always, then every
// missing_required case when they fit, then a seed-dependent contiguous
// window, with wrap-around, of the rest. When the missing_required cases
// alone do not fit, a seed-dependent window of them fills the budget. The
// kept indices come back in their original order; droppedRequired counts the
// missing_required cases left out.
func applyBudget(specs []spec, budget int, seed int64) (keep []int, dropped, droppedRequired int) {
	if budget <= 0 || len(specs) <= budget {
		keep = make([]int, len(specs))
		for i := range keep {
			keep[i] = i
		}
		return keep, 0, 0
	}
	chosen := make([]bool, len(specs))
	chosen[0] = true
	var required, rest []int
	for i, s := range specs[1:] {
		if s.kind == MissingRequired {
			required = append(required, i+1)
		} else {
			rest = append(rest, i+1)
		}
	}
	room := budget - 1
	if len(required) > room {
		droppedRequired = len(required) - room
		required = window(required, room, seed)
	}
	for _, i := range required {
		chosen[i] = true
	}
	for _, i := range window(rest, room-len(required), seed) {
		chosen[i] = true
	}
	for i, c := range chosen {
		if c {
			keep = append(keep, i)
		}
	}
	return keep, len(specs) - len(keep), droppedRequired
}

// window returns n elements of list from a seed-dependent start, with
// wrap-around (all of list when n covers it).
func window(list []int, n int, seed int64) []int {
	if n >= len(list) {
		return list
	}
	if n <= 0 {
		return nil
	}
	start := int(splitmix64(uint64(seed)) % uint64(len(list)))
	out := make([]int, 0, n)
	for k := 0; k < n; k++ {
		out = append(out, list[(start+k)%len(list)])
	}
	return out
}

// splitmix64 scrambles the seed so that neighbouring seeds give unrelated
// windows; it is fixed here so windows never change with the Go version.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
