//go:build !linux

package hideproc

import "os"

// Args returns os.Args. Only Linux gives other processes this process's
// command line and environment through /proc in a form [Args] can hide;
// elsewhere (ps on macOS and the BSDs shows the command line too) the
// secrets belong in the environment or a file, not on the command line.
func Args() []string { return os.Args }
