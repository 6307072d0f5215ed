package stdio

import "bytes"

// readStderr copies the server's stderr into the ring buffer and, when
// Config.OnStderr is set, hands it on line by line.
func (p *Process) readStderr() {
	defer close(p.stderrDone)
	buf := make([]byte, 32<<10)
	var pending []byte // the start of a line not yet passed to OnStderr
	emit := func(line []byte) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		p.cfg.OnStderr(string(line))
	}
	for {
		n, err := p.stderr.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			p.tail.Write(chunk)
			for p.cfg.OnStderr != nil && len(chunk) > 0 {
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					pending = append(pending, chunk...)
					if len(pending) >= p.cfg.StderrLimit {
						emit(pending)
						pending = pending[:0]
					}
					break
				}
				pending = append(pending, chunk[:i]...)
				emit(pending)
				pending = pending[:0]
				chunk = chunk[i+1:]
			}
		}
		if err != nil {
			if len(pending) > 0 {
				emit(pending)
			}
			return
		}
	}
}
