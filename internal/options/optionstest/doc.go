// Package optionstest checks what documents say about settings (a
// default, a range) against the table of package options, for the tests of
// the front ends whose documents are not generated from it: action.yml,
// the README, the serve tools' parameter descriptions.
package optionstest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// Doc is what one front end's documentation of a setting may state.
type Doc struct {
	// Default is the default as the front end writes it ("15s", "10" for
	// a parameter in seconds); "" when the table has none, and then
	// whatever the text says of a default is not checked.
	Default string
	// Range is the setting's range; nil when it has none, and then the
	// text's ranges ("80 to 120 columns") are about something else.
	Range *engine.Range
	// Max is the largest value the front end takes when it says so with
	// "at most" (a serve parameter); "" when it does not.
	Max string
}

// For is the documentation of o that a front end other than mcp-fuzz
// serve may state.
func For(o options.Option) Doc {
	return Doc{Default: o.DefaultText(), Range: o.Range}
}

var (
	// namedDefault is "auto (default: ...)" and "true (default)".
	namedDefault = regexp.MustCompile(`(\S+) \(default[:)]`)
	// statedDefault is "default 3", "(default 40;", "default 0: none".
	statedDefault = regexp.MustCompile(`\bdefault ([0-9A-Za-z$][^\s;,():]*)`)
	// statedRange is "1 to 20", "64KiB to 1GiB".
	statedRange = regexp.MustCompile(`\b(\d+[A-Za-z]*) to (\d+[A-Za-z]*)\b`)
	// statedMax is "at most 200".
	statedMax = regexp.MustCompile(`\bat most (\d+)\b`)
)

// Mismatches lists what text, documentation of one setting, states that
// d contradicts: another default, another range, another largest value.
// Backticks and line breaks in text are read as nothing and spaces.
func (d Doc) Mismatches(text string) []string {
	text = strings.Join(strings.Fields(strings.ReplaceAll(text, "`", "")), " ")
	var out []string
	if d.Default != "" {
		for _, re := range []*regexp.Regexp{namedDefault, statedDefault} {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				if m[1] != d.Default {
					out = append(out, fmt.Sprintf("says the default is %s, the table %s", m[1], d.Default))
				}
			}
		}
	}
	if d.Range != nil && d.Range.Max != 0 {
		want := [2]string{spell(d.Range, d.Range.Min), spell(d.Range, d.Range.Max)}
		for _, m := range statedRange.FindAllStringSubmatch(text, -1) {
			if [2]string{m[1], m[2]} != want {
				out = append(out, fmt.Sprintf("says %s to %s, the table %s to %s", m[1], m[2], want[0], want[1]))
			}
		}
	}
	if d.Max != "" {
		for _, m := range statedMax.FindAllStringSubmatch(text, -1) {
			if m[1] != d.Max {
				out = append(out, fmt.Sprintf("says at most %s, the table %s", m[1], d.Max))
			}
		}
	}
	return out
}

// spell writes a bound of r as users read it: a size for a range of bytes.
func spell(r *engine.Range, n int) string {
	if r.Bytes {
		return options.SizeText(n)
	}
	return fmt.Sprint(n)
}
