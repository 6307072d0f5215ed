package engine

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// disguisedSecret is the API_TOKEN given to hostile-secret-echo -disguise. It
// has no upper-case letter, so no shape rule redacts it: only matching the
// given value does.
const disguisedSecret = "apikeyvalue9876543210abc"

// A server writes a secret it was given split by invisible characters,
// upper-cased and percent-encoded, everywhere it can: no format holds any
// piece of it, and the answers that carry it are still leaks. Its twin,
// run without the secret, has no leak and nothing redacted.
func TestDisguisedSecretRedactedEverywhere(t *testing.T) {
	parallel(t)
	pieces := []string{
		disguisedSecret[5:],     // after the U+200B split, and of the upper-cased form
		disguisedSecret[6:],     // after the U+034F splits
		disguisedSecret[:5],     // before the U+200B split
		"%61%70%69%6b%65%79%76", // the percent-encoded form
	}
	t.Run("hostile", func(t *testing.T) {
		parallel(t)
		rep := runFixture(t, "hostile-secret-echo", func(c *Config) {
			c.Command = append(c.Command, "-disguise")
			c.Env = []string{"API_TOKEN=" + disguisedSecret, "DEBUG=true"}
		})
		for format, text := range renderAll(t, rep) {
			lower := strings.ToLower(text)
			for _, p := range pieces {
				if i := strings.Index(lower, p); i >= 0 {
					t.Errorf("%s holds the secret piece %q: …%s…", format, p, text[max(0, i-80):min(len(text), i+80)])
				}
			}
		}
		leaks := map[string]bool{}
		for _, c := range cases(rep) {
			for _, f := range c.Flags {
				if f == report.FlagLeak {
					leaks[c.ID] = true
				}
			}
		}
		if !leaks["plain/valid"] {
			t.Errorf("plain/valid answers with the disguised secret but is no leak; leaks: %v", leaks)
		}
	})
	t.Run("twin without the secret", func(t *testing.T) {
		parallel(t)
		rep := runFixture(t, "hostile-secret-echo", func(c *Config) {
			c.Command = append(c.Command, "-disguise")
			c.Env = []string{"DEBUG=true"}
		})
		for format, text := range renderAll(t, rep) {
			if i := strings.Index(text, "***"); i >= 0 {
				t.Errorf("%s of the twin has a redaction: …%s…", format, text[max(0, i-80):min(len(text), i+80)])
			}
		}
		for _, c := range cases(rep) {
			for _, f := range c.Flags {
				if f == report.FlagLeak {
					t.Errorf("case %s of the twin is flagged as a leak", c.ID)
				}
			}
		}
	})
}
