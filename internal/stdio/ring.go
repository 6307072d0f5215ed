package stdio

import (
	"sync"
	"unicode/utf8"
)

// ring keeps the last len(buf) bytes written to it. It never allocates after
// creation.
type ring struct {
	mu   sync.Mutex
	buf  []byte
	pos  int  // where the next byte goes
	full bool // buf has wrapped at least once
}

func newRing(size int) *ring { return &ring{buf: make([]byte, size)} }

func (r *ring) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.pos, r.full = 0, true
		return n, nil
	}
	c := copy(r.buf[r.pos:], p)
	if c < len(p) {
		r.pos = copy(r.buf, p[c:])
		r.full = true
	} else {
		r.pos += c
		if r.pos == len(r.buf) {
			r.pos, r.full = 0, true
		}
	}
	return n, nil
}

// String returns the retained bytes, oldest first. When older bytes were dropped,
// a partial UTF-8 sequence at the start is dropped too.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return string(r.buf[:r.pos])
	}
	b := make([]byte, 0, len(r.buf))
	b = append(b, r.buf[r.pos:]...)
	b = append(b, r.buf[:r.pos]...)
	for k := 1; k < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
		b = b[1:]
	}
	return string(b)
}
