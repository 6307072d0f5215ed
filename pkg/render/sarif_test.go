package render

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles testdata/sarif-minimal.schema.json: a hand-written
// subset of the official SARIF 2.1.0 schema, which cannot be fetched in an
// offline build.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-minimal.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-minimal.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-minimal.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSARIF(t *testing.T) {
	schema := sarifSchema(t)
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			rep := r.rep()
			out, err := SARIF(rep, SARIFOptions{})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(doc); err != nil {
				t.Errorf("SARIF does not validate: %v", err)
			}
			var log sarifLog
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatal(err)
			}
			run := log.Runs[0]
			if len(run.Results) != len(rep.Findings) {
				t.Errorf("%d results for %d findings", len(run.Results), len(rep.Findings))
			}
			seen := map[string]bool{}
			for _, res := range run.Results {
				if rule := run.Tool.Driver.Rules[res.RuleIndex]; rule.ID != res.RuleID {
					t.Errorf("ruleIndex %d is %s, result says %s", res.RuleIndex, rule.ID, res.RuleID)
				}
				fp := res.PartialFingerprints[SARIFFingerprint]
				if seen[fp] {
					t.Errorf("duplicate fingerprint %s", fp)
				}
				seen[fp] = true
				if strings.Contains(res.Message.Text, "\x1b") || strings.Contains(res.Message.Text, "\n") {
					t.Errorf("unescaped message %q", res.Message.Text)
				}
			}
			golden(t, out)
		})
	}
}

func TestSARIFArtifactURI(t *testing.T) {
	out, err := SARIF(gradedReport(), SARIFOptions{ArtifactURI: "servers/weather/package.json"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"uri": "servers/weather/package.json"`)) {
		t.Error("ArtifactURI not used")
	}
	if !bytes.Contains(out, []byte(`"level": "note"`)) || !bytes.Contains(out, []byte(`"ruleId": "mcp-fuzz/crash"`)) {
		t.Error("missing note level or crash rule")
	}
}
