//go:build !linux

package stdio

import "os"

// unread cannot tell, outside Linux, how much of the server's stdin was
// left unread: see [Process.InputReadAtExit].
func unread(*os.File) (int64, bool) { return 0, false }
