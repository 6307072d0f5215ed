//go:build !linux

package box

import (
	"errors"
	"os/exec"
	"time"
)

// New returns a plan that starts servers without a box: elsewhere than on
// Linux there is none yet, and the run says so.
func New(o Options) *Plan {
	p := &Plan{}
	if o.Off {
		p.warning = OffWarning
		p.note("off (--no-box)")
		p.add("none (--no-box)")
	} else {
		p.warning = "the box needs Linux: the server runs as mcp-fuzz's own user beside it"
		p.note("none (needs Linux)")
		p.add("none: the box needs Linux")
	}
	p.add("%s", groupLine)
	return p
}

// A Launch is never made here.
type Launch struct{}

// Wrap fails: there is no launcher here.
func (p *Plan) Wrap(*exec.Cmd) (*Launch, error) { return nil, errors.New("the box needs Linux") }

// Start fails: there is no launcher here.
func (l *Launch) Start() error { return errors.New("the box needs Linux") }

// Status says nothing.
func (l *Launch) Status(time.Duration) (string, bool) { return "", false }
