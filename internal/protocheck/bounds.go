package protocheck

import "time"

// The bounds of one check's request, which its reproducer keeps too.
const (
	// Timeout bounds one check's request: refusing a malformed request
	// takes a protocol layer no tool work, so a server that needs longer is
	// as good as hung.
	Timeout = 5 * time.Second
	// SSEWindow is how long a check listens to an event stream, which may
	// never end.
	SSEWindow = 3 * time.Second
	// AcceptSSE is the media type of an event stream.
	AcceptSSE = "text/event-stream"
)
