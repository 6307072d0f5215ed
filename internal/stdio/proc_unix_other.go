//go:build unix && !linux

package stdio

import "syscall"

func beforeStart() { closeOnExec("") } // /dev/fd may list only 0-2

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// groupAlive reports whether the group pgid has any member (zombies included).
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM
}
