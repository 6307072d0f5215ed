package engine

import (
	"io"
	"log"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
)

// The standard library writes some of what it sees to the standard logger,
// and so to stderr: net/http's Transport logs "Unsolicited response received
// on idle HTTP channel starting with …" with the bytes a server sent, which
// may echo the bearer token or carry a secret the server read. Every run
// puts a redacting writer in front of the standard logger's output, once
// per process: what the logger writes is redacted with the secrets of the
// recent runs and by shape (see [leak.RedactShapes]).

// maxLogDetectors is how many runs' secrets the standard logger's output is
// redacted with: the newest. A connection of an older run has long been
// closed.
const maxLogDetectors = 16

var stdLog struct {
	once   sync.Once
	mu     sync.Mutex
	out    io.Writer        // where the redacted lines go: the logger's output before
	recent []*leak.Detector // the newest last
}

// GuardStandardLog puts a redacting writer in front of the standard logger's
// current output (stderr unless a front end changed it), once per process:
// every line the standard library logs is then written with the secrets of
// the recent runs and every secret shape replaced by "***". Every run, plan
// and replay calls it. A front end that sets the standard logger's output
// must do so before the first of them: the writer wraps the output of that
// moment, and a later [log.SetOutput] replaces it.
func GuardStandardLog() {
	stdLog.once.Do(func() {
		stdLog.mu.Lock()
		stdLog.out = log.Writer()
		stdLog.mu.Unlock()
		log.SetOutput(redactingLog{})
	})
}

// guardLog calls [GuardStandardLog] and adds d's secrets to what the
// standard logger's output is redacted with.
func guardLog(d *leak.Detector) {
	GuardStandardLog()
	stdLog.mu.Lock()
	defer stdLog.mu.Unlock()
	if d.Empty() {
		return
	}
	stdLog.recent = append(stdLog.recent, d)
	if n := len(stdLog.recent); n > maxLogDetectors {
		stdLog.recent = append(stdLog.recent[:0], stdLog.recent[n-maxLogDetectors:]...)
	}
}

// redactingLog is the standard logger's output once guarded. The logger
// writes each entry in one call, so a secret is never split between two.
type redactingLog struct{}

func (redactingLog) Write(p []byte) (int, error) {
	stdLog.mu.Lock()
	defer stdLog.mu.Unlock()
	text := string(p)
	for _, d := range stdLog.recent {
		text = d.Redact(text)
	}
	text = leak.RedactShapes(text)
	if _, err := io.WriteString(stdLog.out, text); err != nil {
		return 0, err
	}
	return len(p), nil
}
