package cli

import (
	"bytes"
	"os"
	"testing"
)

func TestUseColour(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	if useColour(&bytes.Buffer{}, env()) {
		t.Error("a buffer is not a terminal")
	}
	// /dev/null is a character device, as a terminal is: what useColour checks.
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	if !useColour(tty, env()) {
		t.Error("a terminal without NO_COLOR gets no colour")
	}
	if useColour(tty, env("NO_COLOR", "1")) || useColour(tty, env("CI", "true")) {
		t.Error("NO_COLOR or CI does not turn colour off")
	}
}
