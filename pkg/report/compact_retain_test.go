package report

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"
)

// A digest holds its head, not the arguments it was cut from: 100 digests
// of 1 MiB arguments must not keep 100 MiB alive.
func TestDigestDoesNotRetainArguments(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	digests := make([]*ArgumentsDigest, 100)
	for i := range digests {
		args := json.RawMessage(`{"q":"` + string(bytes.Repeat([]byte("é"), 1<<19)) + `"}`)
		digests[i] = DigestArguments(args)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(digests)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 16<<20 {
		t.Errorf("100 digests keep %d MiB alive", grew>>20)
	}
	if len(digests[0].Head) > ArgumentsHeadBytes {
		t.Errorf("head of %d bytes", len(digests[0].Head))
	}
}
