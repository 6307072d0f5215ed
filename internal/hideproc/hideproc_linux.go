package hideproc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// self is the running binary: exec'ing it runs the very same file, even if
// the path it was started by now names another or none.
const self = "/proc/self/exe"

// seals are the seals of a handoff file: nothing can change it once
// written, so the descriptor a process finds under [HandoffVar] is either
// what [Args] wrote or not a handoff at all.
const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE

// Args hides this process's command line and environment from /proc and
// returns its original arguments, os.Args as the program was started
// (which it also puts back into os.Args). Call it first in main: it
// re-executes the binary, so nothing done before it survives.
//
// Started by a user, it writes the arguments and environment to a sealed
// memory file and re-executes the binary in place with the program name
// alone and the variables of [kept]. Re-executed, it reads the file back,
// closes it, restores every variable with os.Setenv (so that os.Getenv sees
// them all while /proc/self/environ shows the cut-down block) and returns.
// When the re-execution cannot happen, the program runs as started; a line
// on stderr says so only when something unexpected failed. A handoff that
// cannot be read is reported on stderr and the program runs with the
// arguments and environment it can see: it never re-executes twice.
func Args() []string {
	return args(os.Stderr, os.Args)
}

// args is [Args] with the place for notes and the arguments of the
// program.
func args(stderr io.Writer, argv []string) []string {
	if fd, ok := os.LookupEnv(HandoffVar); ok {
		os.Unsetenv(HandoffVar)
		original, err := receive(fd)
		if err != nil {
			fmt.Fprintf(stderr, "mcp-fuzz: the arguments handed over at start cannot be read (%v); running with the %d visible ones\n", err, max(len(argv)-1, 0))
			return argv
		}
		os.Args = original
		return original
	}
	if err := reexec(argv); err != nil {
		fmt.Fprintf(stderr, "mcp-fuzz: cannot hide the command line and environment from other processes (%v); running as started\n", err)
	}
	return argv
}

// reexec replaces this process with the same binary, handing argv and the
// environment over in a sealed memory file. It returns nil without doing
// anything when there is nothing to hide or nowhere to hide it from (no
// /proc), and an error when it failed otherwise.
func reexec(argv []string) error {
	environ := os.Environ()
	visible := reduce(environ)
	if len(argv) <= 1 && len(visible) == len(environ) {
		return nil
	}
	if _, err := os.Stat(self); err != nil {
		return nil // no /proc: no one reads ours either
	}
	data, err := encode(argv, environ)
	if err != nil {
		return err
	}
	fd, err := unix.MemfdCreate("mcp-fuzz-handoff", unix.MFD_ALLOW_SEALING)
	if errors.Is(err, unix.ENOSYS) {
		return nil // a kernel before 3.17
	}
	if err != nil {
		return fmt.Errorf("memfd_create: %w", err)
	}
	if err := writeAll(fd, data); err != nil {
		unix.Close(fd)
		return err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		unix.Close(fd)
		return fmt.Errorf("sealing the handoff: %w", err)
	}
	name := "mcp-fuzz"
	if len(argv) > 0 {
		name = argv[0]
	}
	env := append(visible, HandoffVar+"="+strconv.Itoa(fd))
	err = syscall.Exec(self, []string{name}, env)
	unix.Close(fd)
	return fmt.Errorf("exec: %w", err)
}

// writeAll writes data to fd from its start.
func writeAll(fd int, data []byte) error {
	for off := 0; off < len(data); {
		n, err := unix.Pwrite(fd, data[off:], int64(off))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("writing the handoff: %w", err)
		}
		off += n
	}
	return nil
}

// receive reads the handoff of descriptor fdText, closes it, restores the
// environment it holds and returns the arguments. A descriptor that is not
// a sealed memory file as [reexec] leaves it is not touched.
func receive(fdText string) ([]string, error) {
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q: not a descriptor", HandoffVar, fdText)
	}
	got, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil {
		return nil, fmt.Errorf("descriptor %d: not a handoff: %w", fd, err)
	}
	if got != seals {
		return nil, fmt.Errorf("descriptor %d: not a sealed handoff", fd)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	if st.Size > MaxHandoff {
		return nil, errTooLarge
	}
	data := make([]byte, st.Size)
	for off := 0; off < len(data); {
		n, err := unix.Pread(fd, data[off:], int64(off))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the handoff: %w", err)
		}
		if n == 0 {
			return nil, errors.New("handoff cut short")
		}
		off += n
	}
	argv, env, err := decode(data)
	if err != nil {
		return nil, err
	}
	// Entries that cannot be set (no name, a NUL) could not be looked up
	// by name in the first place: leaving them out changes nothing.
	restore(env, os.Setenv)
	return argv, nil
}
