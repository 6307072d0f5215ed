package stdio

import (
	"os"
	"syscall"
	"unsafe"
)

// unread returns how many bytes written to the pipe f (our end of the
// server's stdin) are still in the pipe, unread by anyone: FIONREAD, which
// Linux answers on either end of a pipe. ok is false when it cannot say.
func unread(f *os.File) (n int64, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var count int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&count)))
	}); err != nil || errno != 0 {
		return 0, false
	}
	return int64(count), true
}
