//go:build !unix

package boundedfile

// oNonblock is 0 where FIFOs do not block an open (see nonblock_unix.go).
const oNonblock = 0
