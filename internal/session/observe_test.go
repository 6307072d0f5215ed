package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
)

func TestCacheHintProblem(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"ttlMs":60000,"cacheScope":"private"}`: "",
		`{"ttlMs":0,"cacheScope":"public"}`:      "",
		`{}`:                                     "no ttlMs, no cacheScope",
		`{"ttlMs":-1,"cacheScope":"public"}`:     "ttlMs -1 is not a non-negative integer",
		`{"ttlMs":1.5,"cacheScope":"public"}`:    "ttlMs 1.5 is not a non-negative integer",
		`{"ttlMs":"60","cacheScope":"public"}`:   `ttlMs is not a number: "60"`,
		`{"ttlMs":1e15,"cacheScope":"public"}`:   "ttlMs 1e15 is over a year",
		`{"ttlMs":5,"cacheScope":"shared"}`:      `cacheScope "shared" is neither "public" nor "private"`,
		`{"ttlMs":5,"cacheScope":null}`:          `cacheScope null is neither`,
	} {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &fields); err != nil {
			t.Fatal(err)
		}
		got := cacheHintProblem(fields)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("cacheHintProblem(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestObservedBounded: a server that sends many distinct methods, and
// input requests of many kinds, costs a few entries, and names cut short.
func TestObservedBounded(t *testing.T) {
	t.Parallel()
	o := &Observed{}
	long := strings.Repeat("m", 10000)
	for i := 0; i < 1000; i++ {
		o.sawServerMessage(long+string(rune('a'+i%26))+strings.Repeat("x", i), true)
		o.sawInputRequests("tools/call", map[string]json.RawMessage{"k": json.RawMessage(`{"method":"` + long + strings.Repeat("y", i) + `"}`)})
		o.sawError("tools/call", int64(-32020-i%80))
	}
	if len(o.ServerMessages) > maxObservedNames || len(o.InputKinds) > maxObservedNames || len(o.Codes) > maxObservedNames {
		t.Errorf("kept %d messages, %d input kinds, %d codes", len(o.ServerMessages), len(o.InputKinds), len(o.Codes))
	}
	for m := range o.ServerMessages {
		if len(m) > 64 {
			t.Errorf("a method of %d bytes kept", len(m))
		}
	}
}

// TestObservedRedactsBeforeCut: a secret the server puts where a cut
// would split it (a method name at its 64th byte, a cache hint at its
// 40th character) is redacted whole, so that no part of it reaches a
// check's detail; the run's later redaction of details cannot see a
// secret already cut.
func TestObservedRedactsBeforeCut(t *testing.T) {
	t.Parallel()
	secret := "canary-0123456789abcdef"
	o := &Observed{leak: leak.NewDetector(map[string]string{"--env TOKEN": secret})}
	o.sawServerMessage(strings.Repeat("m", 55)+secret, true)
	o.sawInputRequests("tools/call", map[string]json.RawMessage{"k": json.RawMessage(`{"method":"` + strings.Repeat("y", 55) + secret + `"}`)})
	o.sawResult("tools/list", map[string]json.RawMessage{"ttlMs": json.RawMessage(`1`), "cacheScope": json.RawMessage(`"` + strings.Repeat("s", 30) + secret + `"`)})
	var kept []string
	for m := range o.ServerMessages {
		kept = append(kept, m)
	}
	kept = append(kept, o.InputKinds...)
	kept = append(kept, o.Results["tools/list"].CacheProblem)
	if len(kept) != 3 || kept[2] == "" {
		t.Fatalf("kept %q", kept)
	}
	for _, k := range kept {
		if strings.Contains(k, secret[:8]) {
			t.Errorf("%q keeps part of the secret", k)
		}
	}
}
