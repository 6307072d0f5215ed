package leak

import (
	"strings"
	"testing"
	"time"
)

// TestRedactValueLinear checks that a MiB of text built to slow down the
// matching of given secrets (near misses in every case and encoding,
// invisible characters, escapes, runs of one letter, many split secrets)
// is redacted and scanned quickly.
func TestRedactValueLinear(t *testing.T) {
	t.Parallel()
	d := NewDetector(map[string]string{
		"--env API_KEY": apiKey,
		"--env RUN":     strings.Repeat("a", 40) + "b",
		"--header A":    "Bearer " + strings.Repeat("x\u200b", 4) + "yz-token",
	})
	for name, unit := range map[string]string{
		"near misses":    apiKey[:len(apiKey)-1] + " " + strings.ToUpper(apiKey[:10]) + "\u200b%61%70%69 ",
		"split secrets":  apiKey[:3] + "\u034f" + apiKey[3:] + "\u200b",
		"escapes":        `\\\\u200b\u200B\udb40\udc41` + apiKey[:8],
		"one letter":     "aaaaaaaa",
		"one letter zwj": "aaaa\u200d",
		"percent":        "%61%70%69%6B%65%79%76%61%6C%75%65",
	} {
		text := strings.Repeat(unit, (1<<20)/len(unit))
		start := time.Now()
		out := d.Redact(text)
		d.Find(text)
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("%s: a MiB took %v", name, el)
		}
		if strings.Contains(out, apiKey) {
			t.Errorf("%s: the key survived", name)
		}
	}
}

func BenchmarkRedactValueInvisible(b *testing.B) {
	text := strings.Repeat("ordinary output with a apike\u200byvalue9876543210abc inside and \u00adwords\n", (1<<20)/64)
	d := NewDetector(map[string]string{"--env API_KEY": apiKey})
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		d.Redact(text)
	}
}
