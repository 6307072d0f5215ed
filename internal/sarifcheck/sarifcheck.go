package sarifcheck

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the official SARIF 2.1.0 (rtm.5) JSON Schema, as shipped in
// the npm package @microsoft/jest-sarif 1.0.0-beta.0 (MIT), the same file
// the e2e tests read from node_modules.
//
//go:embed sarif-2.1.0-rtm.5.json
var schemaJSON []byte

// GitHub code scanning's limits (docs.github.com, "SARIF support for code
// scanning": "File compatibility" and the sarif-limits table). An upload
// over any of them is rejected.
const (
	MaxGzipBytes       = 10_000_000 // "a maximum size of 10 MB" per gzip-compressed file
	MaxRuns            = 20
	MaxResults         = 25_000
	MaxRules           = 25_000
	MaxLocations       = 1_000
	MaxTags            = 20 // only 10 are shown
	MaxDescriptionText = 1024
	MaxRuleName        = 255
)

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
)

func schema() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compileErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("sarif-2.1.0-rtm.5.json", doc); err != nil {
			compileErr = err
			return
		}
		compiled, compileErr = c.Compile("sarif-2.1.0-rtm.5.json")
	})
	return compiled, compileErr
}

// Schema validates data against the official SARIF 2.1.0 schema.
func Schema(data []byte) error {
	s, err := schema()
	if err != nil {
		return fmt.Errorf("compiling the SARIF schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("decoding SARIF: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("SARIF does not validate against the 2.1.0 schema: %w", err)
	}
	return nil
}

// Options tune [Check].
type Options struct {
	// Root is the repository root: when set, every location's uri must name
	// a regular file under it.
	Root string
}

// Check validates data against the schema ([Schema]) and GitHub code
// scanning's documented requirements: the required properties (non-empty),
// the limits above, at least one location per result with a relative uri
// and a start line (an upload with a result without one is rejected:
// "locationFromSarifResult: expected at least one location"), a
// primaryLocationLineHash (the only fingerprint code scanning reads) unique
// within its run, security-severity a number in (0, 10], and a category in
// automationDetails.id. It reports every problem found, joined.
func Check(data []byte, opts Options) error {
	if err := Schema(data); err != nil {
		return err
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(data)
	_ = w.Close()
	if gz.Len() > MaxGzipBytes {
		fail("gzip-compressed size %d bytes is over code scanning's %d", gz.Len(), MaxGzipBytes)
	}

	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil {
		return fmt.Errorf("decoding SARIF: %w", err)
	}
	if log.Schema == "" {
		fail("$schema is required")
	}
	if log.Version != "2.1.0" {
		fail("version %q: code scanning supports 2.1.0 only", log.Version)
	}
	if n := len(log.Runs); n == 0 || n > MaxRuns {
		fail("%d runs: want 1 to %d", n, MaxRuns)
	}
	for i, run := range log.Runs {
		checkRun(fmt.Sprintf("runs[%d]", i), run, opts, fail)
	}
	return errors.Join(errs...)
}

func checkRun(at string, run sarifRun, opts Options, fail func(string, ...any)) {
	d := run.Tool.Driver
	if d.Name == "" {
		fail("%s.tool.driver.name is required", at)
	}
	if d.Rules == nil {
		fail("%s.tool.driver.rules is required", at)
	}
	if len(d.Rules) > MaxRules {
		fail("%s: %d rules, over %d", at, len(d.Rules), MaxRules)
	}
	if run.Results == nil {
		fail("%s.results is required", at)
	}
	if len(run.Results) > MaxResults {
		fail("%s: %d results, over %d", at, len(run.Results), MaxResults)
	}
	if a := run.AutomationDetails; a != nil {
		i := strings.LastIndex(a.ID, "/")
		if i <= 0 {
			fail("%s.automationDetails.id %q has no category (the part before the last /)", at, a.ID)
		}
	}
	rules := map[string]int{}
	for j, r := range d.Rules {
		rat := fmt.Sprintf("%s.tool.driver.rules[%d]", at, j)
		if r.ID == "" {
			fail("%s.id is required", rat)
		}
		if _, dup := rules[r.ID]; dup {
			fail("%s.id %q is not unique", rat, r.ID)
		}
		rules[r.ID] = j
		for _, t := range []struct {
			name string
			text *sarifText
		}{{"shortDescription", r.ShortDescription}, {"fullDescription", r.FullDescription}, {"help", r.Help}} {
			switch {
			case t.text == nil || t.text.Text == "":
				fail("%s.%s.text is required", rat, t.name)
			case t.name != "help" && len([]rune(t.text.Text)) > MaxDescriptionText:
				fail("%s.%s.text is over %d characters", rat, t.name, MaxDescriptionText)
			}
		}
		if len([]rune(r.Name)) > MaxRuleName {
			fail("%s.name is over %d characters", rat, MaxRuleName)
		}
		if len(r.Properties.Tags) > MaxTags {
			fail("%s: %d tags, over %d", rat, len(r.Properties.Tags), MaxTags)
		}
		if s, ok := r.Properties.SecuritySeverity.(string); r.Properties.SecuritySeverity != nil {
			v, err := strconv.ParseFloat(s, 64)
			switch {
			case !ok:
				fail("%s.properties.security-severity must be a string", rat)
			case err != nil || v <= 0 || v > 10:
				fail("%s.properties.security-severity %q: want a number over 0.0 up to 10.0", rat, s)
			}
			hasSecurity := false
			for _, t := range r.Properties.Tags {
				hasSecurity = hasSecurity || t == "security"
			}
			if !hasSecurity {
				fail("%s has a security-severity but no security tag", rat)
			}
		}
	}
	seen := map[string]int{}
	for j, res := range run.Results {
		rat := fmt.Sprintf("%s.results[%d]", at, j)
		if res.Message.Text == "" {
			fail("%s.message.text is required", rat)
		}
		if res.RuleID != "" {
			k, ok := rules[res.RuleID]
			switch {
			case !ok:
				fail("%s.ruleId %q names no rule", rat, res.RuleID)
			case res.RuleIndex != nil && *res.RuleIndex != k:
				fail("%s.ruleIndex %d is not rule %q (%d)", rat, *res.RuleIndex, res.RuleID, k)
			}
		}
		switch n := len(res.Locations); {
		case n == 0:
			fail("%s has no location: code scanning rejects the whole upload", rat)
		case n > MaxLocations:
			fail("%s: %d locations, over %d", rat, n, MaxLocations)
		}
		for k, l := range res.Locations {
			checkLocation(fmt.Sprintf("%s.locations[%d]", rat, k), l, opts, fail)
		}
		fp := res.PartialFingerprints["primaryLocationLineHash"]
		if fp == "" {
			fail("%s.partialFingerprints.primaryLocationLineHash is required (code scanning reads no other)", rat)
		} else if prev, dup := seen[res.RuleID+"\x00"+fp]; dup {
			fail("%s has the fingerprint of results[%d]: code scanning would show them as one alert", rat, prev)
		} else {
			seen[res.RuleID+"\x00"+fp] = j
		}
	}
}

func checkLocation(at string, l sarifLocation, opts Options, fail func(string, ...any)) {
	p := l.PhysicalLocation
	if p == nil || p.ArtifactLocation == nil || p.ArtifactLocation.URI == "" {
		fail("%s.physicalLocation.artifactLocation.uri is required", at)
		return
	}
	uri := p.ArtifactLocation.URI
	if strings.ContainsAny(uri, " #?") {
		fail("%s uri %q: want a URI reference (percent-encoded)", at, uri)
		return
	}
	uri, err := url.PathUnescape(uri)
	if err != nil {
		fail("%s uri %q: %v", at, p.ArtifactLocation.URI, err)
		return
	}
	switch {
	case strings.Contains(uri, "://") || strings.HasPrefix(uri, "/") || filepath.IsAbs(uri):
		fail("%s uri %q: want a path relative to the repository root", at, uri)
		return
	case strings.Contains(uri, `\`):
		fail("%s uri %q: want forward slashes", at, uri)
		return
	case path.Clean(uri) != uri || uri == "." || strings.HasPrefix(uri, "../"):
		fail("%s uri %q: want a clean path inside the repository", at, uri)
		return
	}
	if p.Region == nil || p.Region.StartLine < 1 {
		fail("%s.physicalLocation.region.startLine is required (1 or more)", at)
	}
	if opts.Root != "" {
		st, err := os.Stat(filepath.Join(opts.Root, filepath.FromSlash(uri)))
		if err != nil || !st.Mode().IsRegular() {
			fail("%s uri %q: no such file in %s", at, uri, opts.Root)
		}
	}
}

// The parts of a SARIF log that code scanning reads, pointers where absence
// matters.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool struct {
		Driver struct {
			Name  string      `json:"name"`
			Rules []sarifRule `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Results           []sarifResult `json:"results"`
	AutomationDetails *struct {
		ID string `json:"id"`
	} `json:"automationDetails"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string     `json:"id"`
	Name             string     `json:"name"`
	ShortDescription *sarifText `json:"shortDescription"`
	FullDescription  *sarifText `json:"fullDescription"`
	Help             *sarifText `json:"help"`
	Properties       struct {
		Tags             []string `json:"tags"`
		SecuritySeverity any      `json:"security-severity"`
	} `json:"properties"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           *int              `json:"ruleIndex"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation *struct {
		ArtifactLocation *struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}
