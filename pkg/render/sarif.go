package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/score"
)

// SARIF identifiers.
const (
	SARIFSchema      = "https://json.schemastore.org/sarif-2.1.0.json"
	SARIFVersion     = "2.1.0"
	SARIFFingerprint = "mcpFuzzFinding/v1"
	// DefaultArtifactURI is the file SARIF results point at when
	// [SARIFOptions.ArtifactURI] is empty.
	DefaultArtifactURI = ".mcp-fuzz.yml"
	informationURI     = "https://github.com/mcp-fuzz/mcp-fuzz"
)

// SARIFOptions says where SARIF results are located.
type SARIFOptions struct {
	// ArtifactURI is the repository file, relative to the repository root,
	// that every result points at (line 1): code scanning needs a location in
	// a repo file, and a finding about a running server has none of its own.
	// Use the mcp-fuzz config file or the file that starts the server (such as
	// package.json). Empty means DefaultArtifactURI (".mcp-fuzz.yml").
	ArtifactURI string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool      `json:"tool"`
	Results    []sarifResult  `json:"results"`
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifText          `json:"shortDescription"`
	FullDescription      sarifText          `json:"fullDescription"`
	Help                 sarifText          `json:"help"`
	HelpURI              string             `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifResultProps  `json:"properties"`
}

type sarifResultProps struct {
	Severity  report.Severity `json:"severity"`
	Tool      string          `json:"tool,omitempty"`
	CaseID    string          `json:"caseId,omitempty"`
	FindingID string          `json:"findingId"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// SARIFRuleID is the stable rule id of a finding code, such as
// "mcp-fuzz/crash".
func SARIFRuleID(code string) string { return "mcp-fuzz/" + code }

// sarifLevel maps a finding severity to a SARIF level.
func sarifLevel(severity report.Severity) string {
	switch severity {
	case report.SeverityCritical, report.SeverityError:
		return "error"
	case report.SeverityWarning:
		return "warning"
	}
	return "note"
}

// SARIF renders rep's findings as a SARIF 2.1.0 log with one run: one rule
// per finding code (id [SARIFRuleID]) and one result per finding, located at
// line 1 of opts.ArtifactURI, with the partial fingerprint
// "mcpFuzzFinding/v1" (the SHA-256 of the finding id) so code scanning
// tracks a finding across runs.
func SARIF(rep *report.Report, opts SARIFOptions) ([]byte, error) {
	uri := opts.ArtifactURI
	if uri == "" {
		uri = DefaultArtifactURI
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "mcp-fuzz", Version: rep.Version, InformationURI: informationURI, Rules: []sarifRule{},
		}},
		Results: []sarifResult{},
	}
	index := map[string]int{}
	for _, c := range countCodes(rep.Findings) {
		d := report.DescribeCode(c.Code)
		index[c.Code] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   SARIFRuleID(c.Code),
			Name:                 c.Code,
			ShortDescription:     sarifText{Text: d.Title},
			FullDescription:      sarifText{Text: d.Title + " (mcp-fuzz finding code " + c.Code + ")."},
			Help:                 sarifText{Text: d.Fix},
			HelpURI:              informationURI,
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(c.Severity)},
		})
	}
	for _, f := range sortedFindings(rep.Findings) {
		msg := escape.Terminal(f.Message, textMax)
		if f.Tool != "" {
			msg = "Tool " + escape.Terminal(f.Tool, nameMax) + ": " + msg
		}
		if f.CaseID != "" {
			msg += " (case " + escape.Terminal(f.CaseID, nameMax) + ")"
		}
		switch {
		case f.Reproducer.JSONRPC != "":
			msg += ". Reproduce with: " + escape.Terminal(f.Reproducer.JSONRPC, reproducerMax)
		case f.Reproducer.Shell != "":
			msg += ". Reproduce with: " + escape.Terminal(f.Reproducer.Shell, reproducerMax)
			if note := placeholderNote(f.Reproducer.Shell); note != "" {
				msg += " (" + note + ")"
			}
		}
		sum := sha256.Sum256([]byte(f.ID))
		run.Results = append(run.Results, sarifResult{
			RuleID:    SARIFRuleID(f.Code),
			RuleIndex: index[f.Code],
			Level:     sarifLevel(f.Severity),
			Message:   sarifText{Text: msg},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: uri},
				Region:           sarifRegion{StartLine: 1},
			}}},
			PartialFingerprints: map[string]string{SARIFFingerprint: hex.EncodeToString(sum[:])},
			Properties: sarifResultProps{
				Severity: f.Severity, Tool: escape.Terminal(f.Tool, nameMax), CaseID: escape.Terminal(f.CaseID, nameMax), FindingID: f.ID,
			},
		})
	}
	props := map[string]any{"graded": rep.Graded}
	if rep.Score != nil {
		props["score"] = *rep.Score
	}
	if rep.Grade != nil {
		props["grade"] = *rep.Grade
	}
	if rep.Static {
		props["static"] = report.StaticLabel
	} else if u := score.Untested(rep); u != "" {
		props["untested"] = u
	}
	run.Properties = props
	out, err := json.MarshalIndent(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding sarif: %w", err)
	}
	return append(escape.JSON(out), '\n'), nil
}
