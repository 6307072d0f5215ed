package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Bounds on what a failed start quotes of the server: its last stderr
// lines and the first stdout lines that were not JSON-RPC, each cut.
const (
	startupStderrLines = 20
	startupStdoutLines = 10
	startupLineWidth   = 200
)

// ErrStartupTimedOut marks a server that gave no answer to the handshake
// within --startup-timeout and was stopped by mcp-fuzz.
var ErrStartupTimedOut = errors.New("startup timed out")

// startupLog keeps the stdout lines of a starting server that were not
// JSON-RPC (a banner, a log line), redacted and cut, the first few only.
type startupLog struct {
	mu     sync.Mutex
	stdout []string
	more   int
}

func (l *startupLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.stdout) < startupStdoutLines {
		l.stdout = append(l.stdout, line)
	} else {
		l.more++
	}
}

// startupFailure says honestly why a stdio server never answered its
// handshake: mcp-fuzz stopped it after limit, or it exited by itself
// (status is its exit code or signal), followed by the server's last
// stderr lines (redact is the run's leak redactor) and what it wrote on
// stdout that was not JSON-RPC. Each quoted line is on a line of its
// own, indented, cut to a bounded width.
func startupFailure(ctx context.Context, handshake string, limit time.Duration, status, signalled, stderr string, log *startupLog, redact func(string) string) (string, error) {
	var reason string
	var mark error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		reason = fmt.Sprintf("timed out after %s waiting for the %s answer (mcp-fuzz stopped it)", limit, handshake)
		mark = ErrStartupTimedOut
	case ctx.Err() != nil:
		reason = fmt.Sprintf("interrupted while waiting for the %s answer (mcp-fuzz stopped it)", handshake)
	case signalled != "" && status != "":
		// Stopped by mcp-fuzz for a reason of its own (the connection
		// broke first): not the server's own exit.
		reason = fmt.Sprintf("no %s answer; mcp-fuzz stopped the server (%s)", handshake, status)
	case status != "":
		reason = fmt.Sprintf("server exited by itself (%s) before answering %s", status, handshake)
	default:
		reason = fmt.Sprintf("server closed its stdout before answering %s", handshake)
	}
	return reason + startupOutput(stderr, log, redact), mark
}

// startupOutput is the quoted stderr tail and stdout lines of a failed
// start, each line on its own line after a newline; "" when the server
// wrote nothing.
func startupOutput(stderr string, log *startupLog, redact func(string) string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(stderr, "\r\n", "\n"), "\n \t"), "\n")
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		lines = nil
	}
	if n := len(lines); n > 0 {
		shown := lines[max(0, n-startupStderrLines):]
		if len(shown) < n {
			fmt.Fprintf(&b, "\nits stderr, last %d of %d lines:", len(shown), n)
		} else {
			b.WriteString("\nits stderr:")
		}
		for _, l := range shown {
			b.WriteString("\n  | " + quoteLine(redact(l)))
		}
	}
	if log != nil {
		log.mu.Lock()
		out, more := append([]string(nil), log.stdout...), log.more
		log.mu.Unlock()
		if len(out) > 0 {
			b.WriteString("\nits stdout, lines that are not JSON-RPC:")
			for _, l := range out {
				b.WriteString("\n  | " + quoteLine(l))
			}
			if more > 0 {
				fmt.Fprintf(&b, "\n  (and %d more)", more)
			}
		}
	}
	return b.String()
}

// quoteLine is one line of server output as a connect error quotes it:
// tabs as spaces, cut to startupLineWidth characters.
func quoteLine(l string) string {
	l = strings.TrimRight(strings.ReplaceAll(l, "\t", "    "), " \r")
	if r := []rune(l); len(r) > startupLineWidth {
		return string(r[:startupLineWidth]) + "…"
	}
	return l
}
