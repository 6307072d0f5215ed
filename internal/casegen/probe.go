package casegen

import "strings"

// probe is one aggressive-profile string (docs/BEHAVIOUR.md#case-generation "--profile aggressive"): it
// looks for reflection and leaks, it does not attack anything.
type probe struct {
	name, desc string
	value      func() string
	size       int // sizeOf(value()), filled in by init
}

var probes = []probe{
	{"path_traversal", "path traversal", func() string { return "../../../../../../../../etc/passwd" }, 0},
	{"sql", "SQL metacharacter", func() string { return "' OR '1'='1' -- ;\"" }, 0},
	{"shell", "shell metacharacter", func() string { return "mcp_fuzz; echo $(id) `id` | cat && true" }, 0},
	{"template", "template expression", func() string { return "{{7*7}} ${7*7} <%= 7*7 %> #{7*7}" }, 0},
	{"nul", "NUL byte", func() string { return "mcp_fuzz\x00probe" }, 0},
	{"long_unicode", "long unicode", func() string { return strings.Repeat("Ωé漢字😀\u200b", 4096) }, 0},
}

func init() {
	for i := range probes {
		probes[i].size = stringSize(probes[i].value())
	}
}

// probesPerString is how many probes each string location gets.
const probesPerString = 3

// pickProbes chooses the probes for the i-th string location: a window over
// the list that the seed and the location rotate.
func pickProbes(seed int64, i int) []probe {
	start := int((uint64(seed) + uint64(i)*probesPerString) % uint64(len(probes)))
	out := make([]probe, 0, probesPerString)
	for k := 0; k < probesPerString; k++ {
		out = append(out, probes[(start+k)%len(probes)])
	}
	return out
}
