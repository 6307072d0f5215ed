package casegen

// applyBudget chooses which specs to keep when there are more than budget:
// the valid case (index 0) and every missing_required case always, then a
// seed-dependent contiguous window, with wrap-around, of the rest. The kept
// indices come back in their original order.
func applyBudget(specs []spec, budget int, seed int64) (keep []int, dropped int) {
	if budget <= 0 || len(specs) <= budget {
		keep = make([]int, len(specs))
		for i := range keep {
			keep[i] = i
		}
		return keep, 0
	}
	chosen := make([]bool, len(specs))
	var rest []int
	room := budget
	for i, s := range specs {
		if i == 0 || s.kind == MissingRequired {
			chosen[i] = true
			room--
		} else {
			rest = append(rest, i)
		}
	}
	if room > 0 && len(rest) > 0 {
		start := int(splitmix64(uint64(seed)) % uint64(len(rest)))
		for k := 0; k < room && k < len(rest); k++ {
			chosen[rest[(start+k)%len(rest)]] = true
		}
	}
	for i, c := range chosen {
		if c {
			keep = append(keep, i)
		}
	}
	return keep, len(specs) - len(keep)
}

// splitmix64 scrambles the seed so that neighbouring seeds give unrelated
// windows; it is fixed here so windows never change with the Go version.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
