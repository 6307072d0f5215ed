//go:build unix

package action

import (
	"os"
	"syscall"
)

// workspaceOwner returns the uid and gid owning workspace when this process
// runs as root and they are not its own: then files written into the
// workspace are chowned to them.
func workspaceOwner(workspace string) (uid, gid int, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	fi, err := os.Stat(workspace)
	if err != nil {
		return 0, 0, false
	}
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return 0, 0, false
	}
	uid, gid = int(st.Uid), int(st.Gid)
	return uid, gid, uid != os.Geteuid() || gid != os.Getegid()
}
