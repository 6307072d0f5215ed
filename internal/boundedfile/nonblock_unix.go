//go:build unix

package boundedfile

import "syscall"

// oNonblock makes opening a FIFO without a reader fail at once (ENXIO)
// rather than wait for one.
const oNonblock = syscall.O_NONBLOCK
