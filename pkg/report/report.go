package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
)

// SchemaVersion is the version of the JSON report's layout, recorded in
// every report as schemaVersion. Version 2 stores large arguments as an
// [ArgumentsDigest]; reports without the field are version 1.
const SchemaVersion = 2

// Report is everything one run found.
type Report struct {
	SchemaVersion int       `json:"schemaVersion"`
	Version       string    `json:"version"`
	Seed          int64     `json:"seed"`
	StartedAt     time.Time `json:"startedAt"`
	DurationMs    int64     `json:"durationMs"`
	Config        Settings  `json:"config"`
	// Run says how the server was contained: nil in a report of a run that
	// started no server (an HTTP target) and in reports of older versions.
	Run        *Run                 `json:"run,omitempty"`
	Target     Target               `json:"target"`
	Server     Server               `json:"server"`
	Graded     bool                 `json:"graded"`
	Score      *int                 `json:"score" jsonschema:"oneof_type=integer;null"`
	Grade      *string              `json:"grade" jsonschema:"oneof_type=string;null"`
	Dimensions map[string]Dimension `json:"dimensions"`
	Summary    Summary              `json:"summary"`
	Caps       []Cap                `json:"caps"`
	// Critical lists why the critical callout is raised (any crash, hang,
	// protocol violation or leak); empty when it is not.
	Critical  []string  `json:"critical,omitempty"`
	Discovery Discovery `json:"discovery"`
	Tools     []Tool    `json:"tools"`
	Findings  []Finding `json:"findings"`
	Lint      []Lint    `json:"lint"`
	// ServerViolations are the first few protocol violations that happened
	// while no tools/call was in flight (a banner on stdout before
	// initialize, a log line during tools/list or between calls), each
	// redacted and cut like a case's; ServerViolationCount is how many
	// there were in all. They make the finding
	// server/stdout#protocol_violation (server/wire#… over HTTP).
	ServerViolations     []ServerViolation `json:"serverViolations,omitempty"`
	ServerViolationCount int               `json:"serverViolationCount,omitempty"`
	// Checks are the protocol checks (docs/BEHAVIOUR.md#checks-beyond-single-calls): requests that test the
	// server's protocol layer rather than a tool, in the order they ran.
	// A failed one is a finding (protocol/ID#code).
	Checks []Check `json:"checks,omitempty"`
	// Lifecycle says what the lifecycle checks (--sequential, docs/BEHAVIOUR.md#checks-beyond-single-calls)
	// found to check: nil when they were not asked for. Their results are
	// checks of the group "lifecycle" in Checks.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Scratch is the run's scratch area and its canaries, when the
	// security cases ran or the target named {scratch}
	// (docs/BEHAVIOUR.md#security-cases); gone when the run ended, and
	// made again by a security finding's reproducer.
	Scratch *Scratch `json:"scratch,omitempty"`
	// EndedEarly is set when the run stopped before all cases ran, saying why.
	EndedEarly string `json:"endedEarly,omitempty"`
	// Interrupted is set when the run was stopped from outside (SIGINT,
	// SIGTERM, a cancelled context): such a partial report is not graded.
	Interrupted bool `json:"interrupted,omitempty"`
	// Static is set for a static audit (--no-calls): the target was
	// started and listed, its metadata linted, and no tools/call or
	// protocol check was sent. Such a report is graded on the Schema
	// dimension alone; the others are not measured, and no cap that
	// needs a call applies. Renderers label it with [StaticLabel].
	Static bool `json:"static,omitempty"`
	// EraComparison is set by an `--era both` run: the audit in the other
	// era and the verdicts that differ.
	EraComparison *EraComparison `json:"eraComparison,omitempty"`
}

// Run describes how a stdio server was run.
type Run struct {
	// Box is true when the server ran in the box (see SECURITY.md).
	Box bool `json:"box"`
	// Summary is the containment in a few words: "uid 65534 (nobody) ·
	// Landlock 7 · PID namespace".
	Summary string `json:"summary,omitempty"`
	// Containment lists the mechanisms applied to the server, one a line,
	// and those missing with the reason: "landlock ABI 7: …".
	Containment []string `json:"containment"`
	// Warning is set when the server ran without the box (--no-box, or a
	// machine where none can be made), saying what that allows.
	Warning string `json:"warning,omitempty"`
}

// StaticLabel labels a static report (see [Report.Static]) in every
// format, next to its grade.
const StaticLabel = "static audit (--no-calls): Schema only"

// ServerViolation is a protocol violation outside any tool call.
type ServerViolation struct {
	// When is "at startup" (until the initialize answer is read), "during
	// tools/list" or "between calls".
	When string `json:"when"`
	// Excerpt says what was wrong and quotes the server's text, redacted
	// and cut.
	Excerpt string `json:"excerpt"`
}

// Check statuses: a check passed, failed (a finding), or could not run
// (its Detail says why).
const (
	CheckPass = "pass"
	CheckFail = "fail"
	CheckSkip = "skip"
)

// Check is one protocol check: a request that tests the server's protocol
// layer (its _meta envelope, its HTTP headers, the revision's rules), or a
// rule checked over every answer of the run.
type Check struct {
	// ID is stable across runs: "envelope/unsupported-version".
	ID string `json:"id"`
	// Group is the family of the check, the part of its ID before the
	// first "/": "envelope", "compliance" (the HTTP checks too),
	// "resources", "prompts", "probe", "lifecycle" ([CheckGroupLifecycle])
	// or "concurrency" ([CheckGroupConcurrency]).
	Group string `json:"group"`
	// Tool names the tool a check called, for a check of one tool (the
	// concurrency checks' concurrency/TOOL).
	Tool string `json:"tool,omitempty"`
	// Title says what a conforming server does.
	Title  string `json:"title"`
	Status string `json:"status"`
	// Code is the finding code of a failed check: the verdict (crash,
	// hang, protocol_violation) when the request broke the server, else
	// the rule's own code.
	Code string `json:"code,omitempty"`
	// Expected is what the spec asks for: "JSON-RPC error -32022".
	Expected string `json:"expected,omitempty"`
	// Detail is what came back (redacted, cut), or why the check was
	// skipped.
	Detail    string     `json:"detail,omitempty"`
	ErrorCode *int64     `json:"errorCode,omitempty"`
	Crash     *CrashInfo `json:"crash,omitempty"`
	// Request is the JSON-RPC request sent, when the check sent one;
	// Headers are the HTTP headers that differed from mcp-fuzz's own (of
	// a plain HTTP request, the ones it sent besides the user's).
	Request json.RawMessage `json:"request,omitempty"`
	// HTTP is the request line of a check that sent a plain HTTP request
	// rather than a JSON-RPC one, its target relative to the origin of
	// --url: "GET /.well-known/oauth-protected-resource".
	HTTP string `json:"http,omitempty"`
	// Calls are the tools/call requests of a lifecycle check, in the
	// order sent (each a whole JSON-RPC line, with the id the server
	// returned in place).
	Calls      []json.RawMessage `json:"calls,omitempty"`
	Headers    []string          `json:"headers,omitempty"`
	DurationMs float64           `json:"durationMs,omitempty"`
}

// The eras a report's [Server.Era] names.
const (
	// EraModern is the stateless era of the 2026-07-28 revision:
	// server/discover, and the _meta envelope on every request.
	EraModern = "modern"
	// EraLegacy is the era of the 2025 revisions: the initialize
	// handshake.
	EraLegacy = "legacy"
)

// CheckGroupLifecycle is the group of the lifecycle checks
// (--sequential): ids "lifecycle/NOUN" for a resource's create, read,
// delete, read, and "lifecycle/PARENT/CHILD" for a child read after its
// parent's delete.
const CheckGroupLifecycle = "lifecycle"

// CheckGroupConcurrency is the group of the concurrency checks
// (--concurrency N): ids "concurrency/TOOL", "concurrency/same-session"
// and "concurrency/cancel"; their findings are named by tool.
const CheckGroupConcurrency = "concurrency"

// Lifecycle is what the lifecycle checks found to check.
type Lifecycle struct {
	// Groups is how many resources had exactly one create, one read and
	// one delete tool with an id argument: the ones checked.
	Groups int `json:"groups"`
	// Summary says it in a sentence: "0 groups detected: ...".
	Summary string `json:"summary"`
}

// MaxServerViolations bounds the server violations a report keeps.
const MaxServerViolations = 8

// Settings records the options the run used (secrets redacted).
type Settings struct {
	Cases              int   `json:"cases"`
	SlowMs             int   `json:"slowMs"`
	BloatChars         int   `json:"bloatChars"`
	TimeoutMs          int64 `json:"timeoutMs"`
	StartupTimeoutMs   int64 `json:"startupTimeoutMs"`
	IncludeDestructive bool  `json:"includeDestructive"`
	// Sequential is set when the lifecycle checks ran (--sequential).
	Sequential bool     `json:"sequential,omitempty"`
	Tools      []string `json:"tools,omitempty"`
	SkipTools  []string `json:"skipTools,omitempty"`
	Profile    string   `json:"profile"`
	// Era is the protocol era asked for: auto, modern, legacy or both (the
	// one spoken is [Server.Era]).
	Era string `json:"era,omitempty"`
	// Protocol is set when the protocol probes were sent (--protocol).
	Protocol bool `json:"protocol,omitempty"`
	// MaxResponseBytes is the response cap (--max-response).
	MaxResponseBytes int `json:"maxResponseBytes"`
	// MaxHangs is the hang cutoff per tool (--max-hangs); 0: never.
	MaxHangs int `json:"maxHangs"`
	// Parallel is how many tools ran at once (--parallel).
	Parallel int `json:"parallel"`
	// Repeat is how many times a valid call harmless to repeat is timed
	// (--repeat).
	Repeat int `json:"repeat,omitempty"`
	// NoCalls is set for a static audit (--no-calls): see [Report.Static].
	NoCalls bool `json:"noCalls,omitempty"`
	// NoSecurity is set when the security cases were left out
	// (--security=false).
	NoSecurity bool `json:"noSecurity,omitempty"`
	// Concurrency is how many sessions the concurrency checks used
	// (--concurrency); 0 when they did not run.
	Concurrency int `json:"concurrency,omitempty"`
	// ExampleTools names the tools whose valid call came from a config
	// example: replaying their compacted cases needs the same --config.
	ExampleTools []string `json:"exampleTools,omitempty"`
}

// Target is what was fuzzed.
type Target struct {
	Transport string   `json:"transport"` // "stdio", "streamable-http" or "sse"
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Env       []string `json:"env,omitempty"` // names only
	// Headers are the names of the --header headers sent to an HTTP
	// target (their values are secrets: never recorded), and Bearer is
	// set when a bearer token was sent. Replay asks for them again.
	Headers []string `json:"headers,omitempty"`
	Bearer  bool     `json:"bearer,omitempty"`
}

// Server is what the server said about itself in initialize.
type Server struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocolVersion"`
	// Era is the protocol era the audit spoke: "modern" (the stateless
	// 2026-07-28 revision: server/discover and the _meta envelope) or
	// "legacy" (the initialize handshake). Empty in reports of earlier
	// versions of mcp-fuzz, which were all legacy.
	Era string `json:"era,omitempty" jsonschema:"enum=modern,enum=legacy"`
	// EraReason is why the legacy era was spoken although the stateless one
	// was probed first (the auto era): what was wrong with the server's
	// answer to server/discover, redacted. Empty otherwise.
	EraReason string `json:"eraReason,omitempty"`
	// SupportedVersions are the protocol versions the server's
	// server/discover answer listed (modern era only).
	SupportedVersions []string        `json:"supportedVersions,omitempty"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	Instructions      string          `json:"instructions,omitempty"`
}

// Dimension is one scored aspect; Score is nil when not measured.
type Dimension struct {
	Score  *int   `json:"score" jsonschema:"oneof_type=integer;null"`
	Reason string `json:"reason"`
}

// Cap is a grade cap that applied.
type Cap struct {
	Grade  string `json:"grade"`
	Reason string `json:"reason"`
}

// Discovery records what listing found.
type Discovery struct {
	Tools             int `json:"tools"`
	ToolPages         int `json:"toolPages"`
	Resources         int `json:"resources"`
	ResourceTemplates int `json:"resourceTemplates"`
	Prompts           int `json:"prompts"`
	// ToolsTTLMs and ToolsCacheScope are the caching hints of the first
	// tools/list page (2026-07-28), when the server sent them.
	ToolsTTLMs      *int64   `json:"toolsTtlMs,omitempty"`
	ToolsCacheScope string   `json:"toolsCacheScope,omitempty"`
	Notes           []string `json:"notes,omitempty"`
}

// Tool is one tool and its cases.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Tested      bool   `json:"tested"`
	SkipReason  string `json:"skipReason,omitempty"`
	// Confirmed is true when the valid call succeeded, so rejections of bad
	// input prove validation rather than a tool that fails on everything.
	Confirmed bool   `json:"confirmed"`
	Dropped   int    `json:"droppedCases,omitempty"`
	Cases     []Case `json:"cases"`
}

// Case is one call and its verdict.
type Case struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Pointer    string   `json:"pointer"`
	Nested     bool     `json:"nested,omitempty"`
	Forbidden  bool     `json:"forbidden"`
	Verdict    Verdict  `json:"verdict"`
	Flags      []string `json:"flags"`
	DurationMs float64  `json:"durationMs"`
	// StartedMs is when the case's first call began, in milliseconds from
	// the run's start (StartedAt); absent for a case not sent.
	StartedMs float64 `json:"startedMs,omitempty"`
	// Timing is how long the valid call took over its timed runs
	// (--repeat); the slow rules read its p50. Absent on bad-input cases
	// and on a valid call that got no answer.
	Timing *Timing `json:"timing,omitempty"`
	// Arguments are the arguments sent, or null when they were larger than
	// [MaxInlineArguments]: then ArgumentsDigest describes them and
	// `mcp-fuzz replay` regenerates them (see [CompactArguments]).
	Arguments       json.RawMessage  `json:"arguments"`
	ArgumentsDigest *ArgumentsDigest `json:"argumentsDigest,omitempty"`
	Detail          string           `json:"detail,omitempty"`
	ErrorCode       *int64           `json:"errorCode,omitempty"`
	Crash           *CrashInfo       `json:"crash,omitempty"`
	Response        string           `json:"response,omitempty"` // excerpt
	Size            int              `json:"responseChars,omitempty"`
	// LearnedFrom is set on a valid case whose synthetic arguments errored
	// and whose arguments were then learned from what the server itself said
	// (e.g. "error message", "resources/list", "tool list_allowed_directories",
	// "schema examples"): these arguments succeeded, and the tool's bad-input
	// cases derive from them.
	LearnedFrom string `json:"learnedFrom,omitempty"`
	// Task is set on a case of a task-only tool (execution.taskSupport
	// "required"): the call was task-augmented, and what is judged is the
	// answer of tasks/result once tasks/get reported the task finished.
	Task bool `json:"task,omitempty"`
}

// Timing is the latency of a valid call over its timed runs. The first run
// is the case itself; a tool annotated readOnlyHint or idempotentHint is
// called again, up to --repeat runs in all, while each run succeeds. Other
// tools are called once, since calling them again may not be harmless.
type Timing struct {
	Runs  int     `json:"runs"`
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
	// Note says why there are fewer runs than --repeat asked for.
	Note string `json:"note,omitempty"`
	// FailedRun is the run that crashed, hung or broke the protocol, whose
	// verdict the case took (0: none); the runs before it succeeded and
	// are the ones timed. A run that was answered, after which the server
	// exited without reading the next request, is the failed run too, and
	// is timed. The reproducer sends the call that many times.
	FailedRun int `json:"failedRun,omitempty"`
}

// CrashInfo says how a crash or hang happened.
type CrashInfo struct {
	How        string `json:"how,omitempty"` // exit, closed, internal_error
	ExitStatus string `json:"exitStatus,omitempty"`
	Stderr     string `json:"stderr,omitempty"` // redacted tail
}

// Finding is one thing worth fixing.
type Finding struct {
	ID         string     `json:"id"`
	Severity   Severity   `json:"severity"`
	Code       string     `json:"code"`
	Tool       string     `json:"tool,omitempty"`
	CaseID     string     `json:"caseId,omitempty"`
	Message    string     `json:"message"`
	Reproducer Reproducer `json:"reproducer"`
}

// Reproducer lets a reader replay a finding by hand. For a case whose
// arguments were compacted there is no JSON-RPC line, and Shell is an
// `mcp-fuzz replay` command naming the JSON report (or [ReportPlaceholder]
// when the run wrote none).
type Reproducer struct {
	JSONRPC string `json:"jsonrpc,omitempty"` // the tools/call line
	Shell   string `json:"shell,omitempty"`
	// Generator, for arguments too large to print, is a one-line command
	// that prints the exact tools/call line (pipe it to the server after
	// initialize, as Shell does for small ones).
	Generator string `json:"generator,omitempty"`
}

// ReportPlaceholder stands for the JSON report's path in replay
// reproducers when the run did not write a JSON report.
const ReportPlaceholder = "REPORT.json"

// LintLegacyOnly is the code of the warning that a server, offered the
// current revision, spoke only a 2025 one. It is said, not scored: the
// Schema dimension does not count it.
const LintLegacyOnly = "legacy_revision_only"

// Lint is a static finding about metadata.
type Lint struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Tool     string   `json:"tool,omitempty"`
	Pointer  string   `json:"pointer,omitempty"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
}

// MaxSupportedVersions bounds the supportedVersions a report keeps.
const MaxSupportedVersions = 32

// Normalize replaces nil lists by empty ones, so the JSON report always has
// arrays where its schema says so; sets SchemaVersion when it is missing; and
// bounds what the server said about itself (name, version, capabilities,
// instructions, tool descriptions) so that a hostile server cannot bloat the
// report.
func (r *Report) Normalize() {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = SchemaVersion
	}
	r.Server.Name = capText(r.Server.Name, MaxStoredName)
	r.Server.Version = capText(r.Server.Version, MaxStoredName)
	r.Server.ProtocolVersion = capText(r.Server.ProtocolVersion, MaxStoredName)
	r.Server.Era = capText(r.Server.Era, MaxStoredName)
	r.Server.EraReason = capText(r.Server.EraReason, MaxStoredText)
	if len(r.Server.SupportedVersions) > MaxSupportedVersions {
		r.Server.SupportedVersions = r.Server.SupportedVersions[:MaxSupportedVersions]
	}
	for i, v := range r.Server.SupportedVersions {
		r.Server.SupportedVersions[i] = capText(v, MaxStoredName)
	}
	r.Discovery.ToolsCacheScope = capText(r.Discovery.ToolsCacheScope, MaxStoredName)
	r.Server.Instructions = capText(r.Server.Instructions, MaxStoredText)
	if n := len(r.Server.Capabilities); n > MaxStoredCapabilities {
		r.Server.Capabilities = nil
		r.Discovery.Notes = append(r.Discovery.Notes, fmt.Sprintf("the server's capabilities (%s bytes of JSON) are too large to store", thousands(n)))
	}
	if r.Tools == nil {
		r.Tools = []Tool{}
	}
	for i := range r.Tools {
		r.Tools[i].Name = capText(r.Tools[i].Name, MaxStoredToolName)
		r.Tools[i].SkipReason = capText(r.Tools[i].SkipReason, MaxStoredText)
		r.Tools[i].Description = capText(r.Tools[i].Description, MaxStoredText)
		if r.Tools[i].Cases == nil {
			r.Tools[i].Cases = []Case{}
		}
		for j := range r.Tools[i].Cases {
			r.Tools[i].Cases[j].normalize()
		}
	}
	if len(r.ServerViolations) > MaxServerViolations {
		r.ServerViolations = r.ServerViolations[:MaxServerViolations]
	}
	for i := range r.ServerViolations {
		r.ServerViolations[i].When = capText(r.ServerViolations[i].When, MaxStoredName)
		r.ServerViolations[i].Excerpt = capText(r.ServerViolations[i].Excerpt, MaxStoredText)
	}
	for i := range r.Checks {
		r.Checks[i].Detail = capText(r.Checks[i].Detail, MaxStoredText)
	}
	if r.Lifecycle != nil {
		r.Lifecycle.Summary = capText(r.Lifecycle.Summary, MaxStoredText)
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for i := range r.Findings {
		r.Findings[i].Tool = capText(r.Findings[i].Tool, MaxStoredToolName)
	}
	if r.Lint == nil {
		r.Lint = []Lint{}
	}
	for i := range r.Lint {
		r.Lint[i].Tool = capText(r.Lint[i].Tool, MaxStoredToolName)
		r.Lint[i].Message = capText(r.Lint[i].Message, MaxStoredText)
	}
	for i, n := range r.Discovery.Notes {
		r.Discovery.Notes[i] = capText(n, MaxStoredText)
	}
	if r.Caps == nil {
		r.Caps = []Cap{}
	}
	r.EraComparison.normalize()
	if r.Dimensions == nil {
		r.Dimensions = map[string]Dimension{}
	}
}

// normalize gives c an empty list of flags rather than none, and bounds
// LearnedFrom, which names a tool of the server ("tool NAME").
func (c *Case) normalize() {
	if c.Flags == nil {
		c.Flags = []string{}
	}
	c.LearnedFrom = capText(c.LearnedFrom, MaxStoredToolName+16)
}

// MaxFileBytes is the largest JSON report [ReadFile] reads.
const MaxFileBytes = 512 << 20

// ReadFile loads a JSON report written by mcp-fuzz (-o FILE.json, --json):
// a regular file of at most [MaxFileBytes], normalized.
func ReadFile(path string) (*Report, error) {
	b, err := boundedfile.Read(path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		// "run.json: no such file", not "stat run.json: no such file or
		// directory".
		return nil, notFound{path, err}
	}
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var many []json.RawMessage
		if json.Unmarshal(b, &many) == nil {
			return nil, &MergedError{Path: path, Reports: len(many)}
		}
	}
	return parseReport(path, b)
}

// MergedError is the error of [ReadFile] for a merged JSON report (the
// reports of several targets, written by `mcp-fuzz merge -o X.json`), which
// [ReadFiles] reads.
type MergedError struct {
	Path    string
	Reports int
}

func (e *MergedError) Error() string {
	return fmt.Sprintf("%s is a merged report of %d targets, not one report: re-render it with mcp-fuzz merge %s -o X.md (or .json)", e.Path, e.Reports, e.Path)
}

// ReadFiles loads the reports of path: one JSON report, or each report of
// a merged one (a JSON array of reports, as `mcp-fuzz merge -o X.json`
// writes).
func ReadFiles(path string) ([]*Report, error) {
	rep, err := ReadFile(path)
	var merged *MergedError
	if !errors.As(err, &merged) {
		if err != nil {
			return nil, err
		}
		return []*Report{rep}, nil
	}
	b, err := boundedfile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var many []json.RawMessage
	if err := json.Unmarshal(b, &many); err != nil {
		return nil, fmt.Errorf("%s is not an mcp-fuzz JSON report: %v", path, err)
	}
	out := make([]*Report, 0, len(many))
	for i, raw := range many {
		rep, err := parseReport(fmt.Sprintf("%s (report %d)", path, i+1), raw)
		if err != nil {
			return nil, err
		}
		out = append(out, rep)
	}
	return out, nil
}

// parseReport decodes one JSON report read from path, normalized.
func parseReport(path string, b []byte) (*Report, error) {
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s is not an mcp-fuzz JSON report: %v", path, err)
	}
	// A SARIF log has a version too ("2.1.0"), and would pass for an empty
	// report: an empty baseline, a blank comment section, a merged row of
	// nothing. Say what it is instead.
	var sarif struct {
		Runs json.RawMessage `json:"runs"`
	}
	if json.Unmarshal(b, &sarif) == nil && sarif.Runs != nil && rep.Tools == nil {
		return nil, fmt.Errorf("%s is a SARIF file, not an mcp-fuzz JSON report: give the file written by -o FILE.json (Action input report)", path)
	}
	if rep.Version == "" && rep.Tools == nil {
		return nil, fmt.Errorf("%s is not an mcp-fuzz JSON report (no version, no tools)", path)
	}
	rep.Normalize()
	return &rep, nil
}

// notFound is the error of [ReadFile] for a path with no file: it names
// the path alone, and is an [fs.ErrNotExist].
type notFound struct {
	path string
	err  error
}

func (e notFound) Error() string { return e.path + ": no such file" }
func (e notFound) Unwrap() error { return e.err }

// Scratch is a run's scratch area: the directory {scratch} stood for, the
// canary files around it, and the port of the loopback listener of the
// server-side request forgery cases. The canaries' tokens are random
// values made for the run, not secrets.
type Scratch struct {
	Dir      string   `json:"dir"`
	Canaries []Canary `json:"canaries"`
	// Link is a symlink inside Dir and the directory it points to.
	Link       string `json:"link,omitempty"`
	LinkTarget string `json:"linkTarget,omitempty"`
	// ListenerPort is the port of the listener on 127.0.0.1 ("" when
	// there was none).
	ListenerPort string `json:"listenerPort,omitempty"`
}

// Canary is one canary file: where it lies relative to the scratch area
// ("parent", "sibling", "temp", "symlink"), its path and its token.
type Canary struct {
	Where string `json:"where"`
	Path  string `json:"path"`
	Token string `json:"token"`
}
