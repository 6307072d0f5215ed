package box

import (
	"fmt"
	"strings"
)

// Options say what the server needs, so that the box can be chosen to keep
// it working.
type Options struct {
	// Off turns the box off (--no-box): the server runs as mcp-fuzz's uid
	// in a process group of its own, as before.
	Off bool
	// Dir is the server's working directory; "" means the caller's.
	Dir string
	// Path is the server's executable (resolved), Args its arguments and
	// Env its environment: an existing file or directory they name must
	// stay reachable for the uid the server runs as.
	Path string
	Args []string
	Env  []string
	// UserHome says the user set HOME for the server (--env HOME=…): it
	// is kept, never replaced by a private one.
	UserHome bool
}

// A Plan is the box chosen for one run: every server of the run is started
// through it. The zero Plan, and a nil one, start servers without a box.
type Plan struct {
	launcher string // this program's executable; "" when the box is off

	setUID   bool // run as uid:gid (mcp-fuzz is root)
	uid, gid int
	dropCaps bool // stay uid 0 but with no capability
	home     string

	landlock bool     // apply a Landlock domain
	writable []string // confine the server's writes to these (uid 0)
	pidNS    bool     // start the launcher in a new PID namespace
	userNS   bool     // with a new user namespace (mcp-fuzz is not root)

	lines   []string
	short   []string
	warning string
	cleanup func()
}

// Active reports whether servers are started through the launcher.
func (p *Plan) Active() bool { return p != nil && p.launcher != "" }

// Lines describe the containment applied, one mechanism a line, for the
// report's "containment" list; absent mechanisms say why.
func (p *Plan) Lines() []string {
	if p == nil {
		return nil
	}
	return append([]string(nil), p.lines...)
}

// Summary is the containment in a few words, for a terminal:
// "uid 65534 (nobody) · Landlock 7 · PID namespace".
func (p *Plan) Summary() string {
	if p == nil {
		return ""
	}
	return strings.Join(p.short, " · ")
}

// note adds a few words to [Plan.Summary].
func (p *Plan) note(s string) { p.short = append(p.short, s) }

// Warning is set when the server runs without the box (--no-box, or no
// launcher could be started): the reason to show in every format.
func (p *Plan) Warning() string {
	if p == nil {
		return ""
	}
	return p.warning
}

// Home is the private home directory made for the server's uid, or "".
// The caller puts it in the server's environment as HOME.
func (p *Plan) Home() string {
	if p == nil {
		return ""
	}
	return p.home
}

// Close removes what the plan made (a private home directory). Call it
// once every server of the run is stopped.
func (p *Plan) Close() {
	if p != nil && p.cleanup != nil {
		p.cleanup()
		p.cleanup = nil
	}
}

// BoxUser is the account a server runs as when mcp-fuzz is root and the
// working directory belongs to root too (the image creates it); without
// it, nobody (65534) is used.
const BoxUser = "mcp-fuzz-box"

// OffWarning is the warning of a run with --no-box.
const OffWarning = "the box is off (--no-box, config box: false or Action input box: false): the server runs as mcp-fuzz's own user beside it and can read its memory and environment, signal it, and outlive it"

// groupLine describes the containment every run has.
const groupLine = "process group: at the end every process the server started is ended (SIGTERM, then SIGKILL)"

func (p *Plan) add(format string, args ...any) {
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}
