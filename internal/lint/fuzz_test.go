package lint

import (
	"encoding/json"
	"testing"
)

// FuzzCheck feeds arbitrary bytes as inputSchema and outputSchema (and as
// the annotations); Check must never panic and must report something for
// anything that is not a plain object schema.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		``, `null`, `true`, `[]`, `{`, `{"type":"object"}`,
		`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
		`{"type":"object","properties":[1]}`,
		`{"type":"object","properties":{"a":true,"b":false,"c":5}}`,
		`{"type":"object","required":"x"}`,
		`{"type":"object","$defs":{"n":{"$ref":"#/$defs/n"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/x.json"}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"string","pattern":"(("}}}`,
		`{"$id":"urn:x","$anchor":"a","type":"object","properties":{"a":{"$ref":"#a"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["x","x","x"]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tl := Tool{
			Name:         "t",
			Description:  "A tool used by the fuzz test.",
			InputSchema:  json.RawMessage(raw),
			OutputSchema: json.RawMessage(raw),
			Annotations:  json.RawMessage(raw),
		}
		got := Check(Server{}, []Tool{tl, tl})
		for _, l := range got {
			if l.Code == "" || l.Message == "" {
				t.Fatalf("empty code or message: %+v", l)
			}
		}
	})
}
