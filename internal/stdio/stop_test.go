package stdio

import (
	"testing"
	"time"
)

// A server that exits on end of input is stopped without a fixed wait: no
// exitWait, no poll interval.
func TestStopPromptServerIsQuick(t *testing.T) {
	p := start(t, Config{Path: "cat"})
	time.Sleep(20 * time.Millisecond) // let it start reading
	begin := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d >= exitWait/2 { // about 3 ms when idle; loose for loaded machines
		t.Errorf("Stop took %v for a server that exits on end of input", d)
	}
	if s := p.Signalled(); s != "" {
		t.Errorf("Signalled = %q, want none", s)
	}
}
