package leak

import (
	"strings"
	"testing"
)

// adversarialValueDetector holds given secrets, and adversarialValues
// units that, repeated to a MiB, would slow down a matcher that rescans:
// near misses in every case and encoding, invisible characters, escapes,
// runs of one letter, many split secrets.
func adversarialValueDetector() *Detector {
	return NewDetector(map[string]string{
		"--env API_KEY": apiKey,
		"--env RUN":     strings.Repeat("a", 40) + "b",
		"--header A":    "Bearer " + strings.Repeat("x\u200b", 4) + "yz-token",
	})
}

var adversarialValues = map[string]string{
	"near misses":    apiKey[:len(apiKey)-1] + " " + strings.ToUpper(apiKey[:10]) + "\u200b%61%70%69 ",
	"split secrets":  apiKey[:3] + "\u034f" + apiKey[3:] + "\u200b",
	"escapes":        `\\\\u200b\u200B\udb40\udc41` + apiKey[:8],
	"one letter":     "aaaaaaaa",
	"one letter zwj": "aaaa\u200d",
	"percent":        "%61%70%69%6B%65%79%76%61%6C%75%65",
}

// TestRedactValueAdversarial checks that the given secret does not survive
// a MiB of adversarial text (BenchmarkRedactValueAdversarial measures its
// cost).
func TestRedactValueAdversarial(t *testing.T) {
	t.Parallel()
	d := adversarialValueDetector()
	for name, unit := range adversarialValues {
		text := strings.Repeat(unit, (1<<20)/len(unit))
		out := d.Redact(text)
		d.Find(text)
		if strings.Contains(out, apiKey) {
			t.Errorf("%s: the key survived", name)
		}
	}
}

// BenchmarkRedactValueAdversarial reports Redact plus Find over a MiB of
// each adversarial unit; a linear matcher takes about what
// BenchmarkRedactValueInvisible takes.
func BenchmarkRedactValueAdversarial(b *testing.B) {
	d := adversarialValueDetector()
	for name, unit := range adversarialValues {
		text := strings.Repeat(unit, (1<<20)/len(unit))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				d.Redact(text)
				d.Find(text)
			}
		})
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
