package box

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// A modeRule says where a syscall that sets a file mode takes it: the
// index of its mode argument, and of its open flags (-1: none; the mode
// then counts only with O_CREAT or O_TMPFILE), and which bits it may not
// set.
type modeRule struct {
	nr          uint32
	mode, flags int
	forbidden   uint32
}

// The mode bits a server left at uid 0 may not set. A setuid or setgid
// file it owns as root would give root to whoever runs it after the run;
// chmod may not make anything writable by everybody either (a file or
// directory of root's given away). A new file's mode is asked before the
// umask takes bits away, so creating one is refused only for setuid and
// setgid: 0666 is what every program asks for.
const (
	forbiddenChmod  = unix.S_ISUID | unix.S_ISGID | unix.S_IWOTH
	forbiddenCreate = unix.S_ISUID | unix.S_ISGID
)

// seccomp BPF (<linux/filter.h>, <linux/seccomp.h>).
const (
	bpfLdWAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
	retAllow  = unix.SECCOMP_RET_ALLOW
	retErrno  = unix.SECCOMP_RET_ERRNO
	offNr     = 0
	offArch   = 4
	offArgs   = 16 // args[i] at offArgs + 8*i; its low 32 bits first (little-endian)
	// O_TMPFILE includes O_DIRECTORY, which alone makes no file.
	openCreate = unix.O_CREAT | (unix.O_TMPFILE &^ unix.O_DIRECTORY)
)

// modeFilter is the seccomp program that refuses (EPERM) every syscall
// setting forbidden mode bits, and openat2, whose mode it cannot see
// (ENOSYS: callers fall back to openat). It returns nil where this
// architecture has no table.
func modeFilter() []unix.SockFilter {
	if len(modeRules) == 0 {
		return nil
	}
	ld := func(off uint32) unix.SockFilter { return unix.SockFilter{Code: bpfLdWAbs, K: off} }
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: bpfRetK, K: k} }
	arg := func(i int) uint32 { return offArgs + 8*uint32(i) }
	prog := []unix.SockFilter{
		ld(offArch),
		{Code: bpfJeqK, K: auditArch, Jt: 1},
		ret(retAllow), // another architecture's calls (none are made)
		ld(offNr),
	}
	for _, r := range modeRules {
		var block []unix.SockFilter
		if r.flags >= 0 {
			block = append(block, ld(arg(r.flags)), unix.SockFilter{Code: bpfJsetK, K: openCreate, Jt: 1}, ret(retAllow))
		}
		block = append(block,
			ld(arg(r.mode)),
			unix.SockFilter{Code: bpfJsetK, K: r.forbidden, Jf: 1},
			ret(retErrno|uint32(unix.EPERM)),
			ret(retAllow))
		prog = append(prog, unix.SockFilter{Code: bpfJeqK, K: r.nr, Jf: uint8(len(block))})
		prog = append(prog, block...)
	}
	prog = append(prog,
		unix.SockFilter{Code: bpfJeqK, K: unix.SYS_OPENAT2, Jf: 1},
		ret(retErrno|uint32(unix.ENOSYS)),
		ret(retAllow))
	return prog
}

// refuseModes installs [modeFilter] on the calling thread (no_new_privs
// must be set); it reports false where there is no table.
func refuseModes() (bool, error) {
	prog := modeFilter()
	if prog == nil {
		return false, nil
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return false, err
	}
	return true, nil
}
