package sarifcheck

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// valid is the smallest log code scanning accepts and displays.
const valid = `{
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "version": "2.1.0",
  "runs": [{
    "tool": {"driver": {"name": "t", "rules": [{"id": "r", "shortDescription": {"text": "s"}, "fullDescription": {"text": "f"}, "help": {"text": "h"},
      "properties": {"tags": ["security"], "security-severity": "7.5"}}]}},
    "automationDetails": {"id": "cat/"},
    "results": [{"ruleId": "r", "ruleIndex": 0, "message": {"text": "m"},
      "locations": [{"physicalLocation": {"artifactLocation": {"uri": "dir/file.yml"}, "region": {"startLine": 3}}}],
      "partialFingerprints": {"primaryLocationLineHash": "abc:1"}}]
  }]
}`

func TestCheckValid(t *testing.T) {
	if err := Check([]byte(valid), Options{}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := Check([]byte(valid), Options{Root: root}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "dir", "file.yml"), []byte("x\n"), 0o644)
	if err := Check([]byte(valid), Options{Root: root}); err != nil {
		t.Errorf("existing file: %v", err)
	}
}

// Each documented requirement, broken once, fails the check with its
// reason.
func TestCheckRejects(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"schema", `"version": "2.1.0"`, `"version": "2.0.0"`, "schema"},
		{"no location", `"locations": [{"physicalLocation": {"artifactLocation": {"uri": "dir/file.yml"}, "region": {"startLine": 3}}}],`, ``, "no location"},
		{"absolute uri", `"uri": "dir/file.yml"`, `"uri": "/github/workspace/dir/file.yml"`, "relative"},
		{"file uri", `"uri": "dir/file.yml"`, `"uri": "file:///dir/file.yml"`, "relative"},
		{"dotdot", `"uri": "dir/file.yml"`, `"uri": "../file.yml"`, "inside the repository"},
		{"no line", `, "region": {"startLine": 3}`, ``, "startLine"},
		{"no fingerprint", `"primaryLocationLineHash": "abc:1"`, `"other": "x"`, "primaryLocationLineHash"},
		{"severity range", `"security-severity": "7.5"`, `"security-severity": "11"`, "security-severity"},
		{"severity type", `"security-severity": "7.5"`, `"security-severity": 7.5`, "must be a string"},
		{"severity without tag", `"tags": ["security"]`, `"tags": []`, "no security tag"},
		{"no category", `"id": "cat/"`, `"id": "cat"`, "category"},
		{"unknown rule", `"ruleId": "r"`, `"ruleId": "q"`, "names no rule"},
		{"rule index", `"ruleIndex": 0`, `"ruleIndex": 1`, "ruleIndex"},
		{"no help", `"help": {"text": "h"}`, `"help": {"text": ""}`, "help.text"},
		{"long description", `"shortDescription": {"text": "s"}`, `"shortDescription": {"text": "` + strings.Repeat("s", 1025) + `"}`, "1024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(valid, tc.old, tc.new, 1)
			if doc == valid {
				t.Fatal("the replacement changed nothing")
			}
			err := Check([]byte(doc), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check = %v, want an error about %q", err, tc.want)
			}
		})
	}
}

// Two results of one rule with one fingerprint would be one alert.
func TestCheckDuplicateFingerprint(t *testing.T) {
	res := `{"ruleId": "r", "ruleIndex": 0, "message": {"text": "m"},
      "locations": [{"physicalLocation": {"artifactLocation": {"uri": "dir/file.yml"}, "region": {"startLine": 3}}}],
      "partialFingerprints": {"primaryLocationLineHash": "abc:1"}}`
	doc := strings.Replace(valid, `"results": [`, `"results": [`+res+`,`, 1)
	if err := Check([]byte(doc), Options{}); err == nil || !strings.Contains(err.Error(), "one alert") {
		t.Errorf("Check = %v", err)
	}
}

// The results limit: 25,001 results are too many.
func TestCheckResultLimit(t *testing.T) {
	res := `{"ruleId": "r", "message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "f"}, "region": {"startLine": 1}}}], "partialFingerprints": {"primaryLocationLineHash": "%d"}}`
	var b strings.Builder
	for i := 0; i <= MaxResults; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(strings.Replace(res, "%d", "x"+strconv.Itoa(i), 1))
	}
	doc := strings.Replace(valid, `"results": [`, `"results": [`+b.String()+`,`, 1)
	if err := Check([]byte(doc), Options{}); err == nil || !strings.Contains(err.Error(), "results, over 25000") {
		t.Errorf("Check = %.300v", err)
	}
}
