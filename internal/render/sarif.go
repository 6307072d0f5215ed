package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// SARIF identifiers.
const (
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	SARIFVersion = "2.1.0"
	// SARIFFingerprint is mcp-fuzz's own partial fingerprint of a result:
	// the SHA-256 of its rule and tool. Code scanning reads only
	// "primaryLocationLineHash" (docs.github.com, "SARIF support for code
	// scanning"), which carries the same identity (see [SARIF]).
	SARIFFingerprint = "mcpFuzzResult/v1"
	// SARIFCategoryPrefix starts every automationDetails.id.
	SARIFCategoryPrefix = "mcp-fuzz/"
	informationURI      = "https://github.com/mcp-fuzz/mcp-fuzz"
	// sarifListMax bounds the case and finding ids one result names.
	sarifListMax = 200
	// sarifMessageIDs is how many case ids a result's message lists.
	sarifMessageIDs = 10
	// sarifCategoryMax bounds the category taken from a target or key.
	sarifCategoryMax = 120
)

// SARIFOptions say where SARIF results are located and which analysis they
// belong to.
type SARIFOptions struct {
	// Location is the repository file every result points at. Code
	// scanning rejects an upload with a result without a location, and a
	// finding about a running server has no source line of its own, so
	// this is the file that configures or defines the server (see package
	// sarifloc). Zero means none was found: the results then have no
	// location, a valid SARIF log that code scanning refuses.
	Location SARIFLocation
	// Category is the analysis category: automationDetails.id is
	// "mcp-fuzz/<Category>/", so that uploads for several targets or
	// matrix legs of one commit do not replace each other. Empty means the
	// target (its URL or command).
	Category string
}

// SARIFLocation is a file in the repository.
type SARIFLocation struct {
	// URI is the file's path relative to the repository root, with forward
	// slashes: "servers/weather/.mcp-fuzz.yml".
	URI string
	// Line is the line results point at (0: line 1).
	Line int
	// ToolLines are better lines for the results of some tools: the
	// tool's per-tool entry in the config file.
	ToolLines map[string]int
}

// line returns the line of tool's results.
func (l SARIFLocation) line(tool string) int {
	if n := l.ToolLines[tool]; n > 0 {
		return n
	}
	if l.Line > 0 {
		return l.Line
	}
	return 1
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool       `json:"tool"`
	AutomationDetails sarifAutomation `json:"automationDetails"`
	Results           []sarifResult   `json:"results"`
	Properties        map[string]any  `json:"properties,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
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
	Properties           sarifRuleProps     `json:"properties"`
}

type sarifRuleProps struct {
	Tags             []string `json:"tags"`
	SecuritySeverity string   `json:"security-severity,omitempty"`
	ProblemSeverity  string   `json:"problem.severity,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifResultProps  `json:"properties"`
}

type sarifResultProps struct {
	Severity   report.Severity `json:"severity"`
	Code       string          `json:"code"`
	Tool       string          `json:"tool,omitempty"`
	Count      int             `json:"count"`
	CaseIDs    []string        `json:"caseIds,omitempty"`
	FindingIDs []string        `json:"findingIds"`
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

// sarifProblemSeverity maps a severity to code scanning's problem.severity
// of a rule that is not about security.
func sarifProblemSeverity(severity report.Severity) string {
	switch severity {
	case report.SeverityCritical, report.SeverityError:
		return "error"
	case report.SeverityWarning:
		return "warning"
	}
	return "recommendation"
}

// sarifRuleFor describes code c as a rule: tags for code scanning's filters
// ("security" and the CWE for the codes with a security-severity, else
// "reliability", "protocol" or "performance"), and security-severity or
// problem.severity.
func sarifRuleFor(c report.Code, severity report.Severity) sarifRule {
	tags := []string{"mcp"}
	props := sarifRuleProps{}
	switch {
	case c.SecuritySeverity != "":
		tags = append(tags, "security")
		props.SecuritySeverity = c.SecuritySeverity
	case c.Check:
		tags = append(tags, "protocol")
	case c.Name == report.FlagSlow || c.Name == report.FlagBloated:
		tags = append(tags, "performance")
	default:
		tags = append(tags, "reliability")
	}
	if c.SecuritySeverity == "" {
		props.ProblemSeverity = sarifProblemSeverity(severity)
	}
	if n, ok := strings.CutPrefix(c.CWE, "CWE-"); ok {
		tags = append(tags, "external/cwe/cwe-"+n)
	}
	props.Tags = tags
	title := c.Title
	if title == "" {
		title = c.Name
	}
	return sarifRule{
		ID:                   SARIFRuleID(c.Name),
		Name:                 c.Name,
		ShortDescription:     sarifText{Text: title},
		FullDescription:      sarifText{Text: title + " (mcp-fuzz finding code " + c.Name + ")."},
		Help:                 sarifText{Text: c.Fix},
		HelpURI:              informationURI,
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(severity)},
		Properties:           props,
	}
}

// SARIFFingerprintOf is the stable identity of the result of tool's
// findings of code: the SHA-256 of both, independent of the location, the
// cases and the run, so code scanning keeps one alert per (tool, code)
// across runs and closes it when the tool no longer has the finding.
func SARIFFingerprintOf(tool, code string) string {
	sum := sha256.Sum256([]byte("mcp-fuzz\x00" + code + "\x00" + tool))
	return hex.EncodeToString(sum[:])
}

// SARIFCategory is the automationDetails.id of a run for category (see
// [SARIFOptions.Category]): "mcp-fuzz/<category>/", control characters
// escaped and a long category shortened with a hash, so the id is stable.
func SARIFCategory(category string) string {
	c := strings.TrimSpace(escape.Terminal(category, 0))
	if len(c) > sarifCategoryMax {
		sum := sha256.Sum256([]byte(c))
		c = strings.ToValidUTF8(c[:sarifCategoryMax-9], "") + "-" + hex.EncodeToString(sum[:4])
	}
	if c == "" {
		c = "default"
	}
	return SARIFCategoryPrefix + c + "/"
}

// SARIF renders rep's findings as a SARIF 2.1.0 log with one run, shaped
// for GitHub code scanning: one rule per finding code (id [SARIFRuleID],
// with tags and a security-severity or problem.severity), one result per
// (tool, code) naming its cases, located in opts.Location (the tool's own
// line when it has one), with a partial fingerprint "primaryLocationLineHash"
// from [SARIFFingerprintOf] (so upload-sarif does not compute one from the
// line, which would merge every result on that line into one alert), and
// automationDetails.id from opts.Category ([SARIFCategory]).
func SARIF(rep *report.Report, opts SARIFOptions) ([]byte, error) {
	category := opts.Category
	if category == "" {
		category = rep.Target.URL
		if category == "" {
			category = rep.Target.Command
		}
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "mcp-fuzz", Version: rep.Version, InformationURI: informationURI, Rules: []sarifRule{},
		}},
		AutomationDetails: sarifAutomation{ID: SARIFCategory(category)},
		Results:           []sarifResult{},
	}
	index := map[string]int{}
	for _, c := range countCodes(rep.Findings) {
		index[c.Code] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(report.DescribeCode(c.Code), c.Severity))
	}
	for _, g := range groupByToolCode(rep.Findings) {
		run.Results = append(run.Results, sarifResultOf(g, index[g.code], opts.Location))
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
	if rep.Run != nil {
		props["containment"] = rep.Run.Containment
		if rep.Run.Warning != "" {
			props["boxWarning"] = rep.Run.Warning
		}
	}
	run.Properties = props
	out, err := json.MarshalIndent(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding sarif: %w", err)
	}
	return append(escape.JSON(out), '\n'), nil
}

// sarifResultOf is the result of one (tool, code): the message's first
// sentence says what and how often (code scanning shows it as the alert's
// title), then the first finding's message and reproducer.
func sarifResultOf(g toolCodeGroup, ruleIndex int, loc SARIFLocation) sarifResult {
	d := report.DescribeCode(g.code)
	first := g.findings[0]
	worst := first.Severity // sortedFindings: worst first
	var caseIDs, findingIDs []string
	cases := 0
	for _, f := range g.findings {
		if f.CaseID == "" {
			continue
		}
		if cases++; len(caseIDs) < sarifListMax {
			caseIDs = append(caseIDs, escape.Terminal(f.CaseID, nameMax))
		}
	}
	for _, f := range g.findings {
		if len(findingIDs) < sarifListMax {
			findingIDs = append(findingIDs, escape.Terminal(f.ID, nameMax))
		}
	}
	var msg strings.Builder
	if g.tool != "" {
		msg.WriteString("Tool " + escape.Terminal(g.tool, nameMax) + ": ")
	} else {
		msg.WriteString("Server: ")
	}
	title := d.Title
	if title == "" {
		title = g.code
	}
	msg.WriteString(title)
	if n := len(g.findings); n == 1 {
		msg.WriteString(" (1 finding")
	} else {
		msg.WriteString(" (" + strconv.Itoa(n) + " findings")
	}
	if len(caseIDs) > 0 {
		shown := caseIDs[:min(len(caseIDs), sarifMessageIDs)]
		msg.WriteString("; cases " + strings.Join(shown, ", "))
		if more := cases - len(shown); more > 0 {
			msg.WriteString(" and " + strconv.Itoa(more) + " more")
		}
	}
	msg.WriteString("). ")
	msg.WriteString(upperFirst(escape.Terminal(first.Message, textMax)))
	switch {
	case first.Reproducer.JSONRPC != "" && !report.DescribeCode(first.Code).Exploit:
		// A security flaw's call proves nothing without the scratch
		// area its shell command makes again.
		msg.WriteString(". Reproduce with: " + escape.Terminal(first.Reproducer.JSONRPC, reproducerMax))
	case first.Reproducer.Shell != "":
		msg.WriteString(". Reproduce with: " + escape.Terminal(first.Reproducer.Shell, reproducerMax))
		if note := placeholderNote(first.Reproducer.Shell); note != "" {
			msg.WriteString(" (" + note + ")")
		}
	}
	fp := SARIFFingerprintOf(g.tool, g.code)
	res := sarifResult{
		RuleID:    SARIFRuleID(g.code),
		RuleIndex: ruleIndex,
		Level:     sarifLevel(worst),
		Message:   sarifText{Text: sarifPlain(msg.String())},
		PartialFingerprints: map[string]string{
			"primaryLocationLineHash": fp[:16] + ":1",
			SARIFFingerprint:          fp,
		},
		Properties: sarifResultProps{
			Severity: worst, Code: g.code, Tool: escape.Terminal(g.tool, nameMax), Count: len(g.findings),
			CaseIDs: caseIDs, FindingIDs: findingIDs,
		},
	}
	if loc.URI != "" {
		res.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: uriPath(loc.URI)},
			Region:           sarifRegion{StartLine: loc.line(g.tool)},
		}}}
	}
	return res
}

// uriPath is path (relative, with forward slashes) as a URI reference:
// each segment percent-encoded, so that a "#", "?", "%" or space in a file
// or directory name does not make the uri name another file (before "#" or
// "?") or none at all.
func uriPath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// sarifPlain keeps s, a plain text message that quotes the server, from
// holding an embedded link: SARIF (§3.11.6) reads "[text](target)" in one as
// a link, which viewers make live, and takes a bracket escaped with a
// backslash for a literal one. A tool named "[click](https://…)" must not
// put a link into a code scanning alert. Only a "]" before "(" is escaped,
// so that the JSON of a reproducer reads as it is.
func sarifPlain(s string) string {
	return strings.ReplaceAll(s, "](", `\](`)
}
