//go:build unix

package boundedfile

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of hard links of the file st describes, or -1
// when unknown.
func linkCount(st fs.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int64(s.Nlink)
	}
	return -1
}
