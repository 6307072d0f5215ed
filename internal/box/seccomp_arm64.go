//go:build linux

package box

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

var modeRules = []modeRule{
	{unix.SYS_FCHMOD, 1, -1, forbiddenChmod},
	{unix.SYS_FCHMODAT, 2, -1, forbiddenChmod},
	{unix.SYS_FCHMODAT2, 2, -1, forbiddenChmod},
	{unix.SYS_MKNODAT, 2, -1, forbiddenCreate},
	{unix.SYS_OPENAT, 3, 2, forbiddenCreate},
}
