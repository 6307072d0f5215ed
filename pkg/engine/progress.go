package engine

// Progress events of the tools as a whole, so that a front end can say
// how far the run is (tools done of all, an estimate of the time left).
const (
	EventTools    EventKind = "tools"     // the tools are about to run (Total: every tool listed, the ones skipped included)
	EventToolDone EventKind = "tool_done" // a tool is done: its cases ran, or it was skipped
)
