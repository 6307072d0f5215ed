package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// childrenOf lists the live (non-zombie) processes whose parent is pid.
func childrenOf(pid int) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
			out = append(out, s[:i+1])
		}
	}
	return out
}
