package report

import (
	"slices"
	"strconv"
)

// Severity ranks a finding or a lint entry.
type Severity string

// The severities, worst first.
const (
	SeverityCritical Severity = "critical"
	SeverityError    Severity = "error"
	SeverityWarning  Severity = "warning"
	SeverityInfo     Severity = "info"
)

// Rank orders severities worst first: critical 0, error 1, warning 2, info
// 3, anything else 4.
func (s Severity) Rank() int {
	switch s {
	case SeverityCritical:
		return 0
	case SeverityError:
		return 1
	case SeverityWarning:
		return 2
	case SeverityInfo:
		return 3
	}
	return 4
}

// Code describes one finding code: a failing verdict or a flag of a case.
// [Codes] is the one table of them; the engine, the score, the gates, the
// renderers and the Action all read it, so a new finding is one row here.
type Code struct {
	// Name is the code as reports spell it, the verdict or flag it comes from.
	Name string
	// Flag is true when the code is a case flag rather than a verdict.
	Flag bool
	// Check is true when the code is a protocol or lifecycle check's (see [Check]),
	// of no case.
	Check bool
	// Era is true for the code of a case judged differently in the two
	// protocol eras (--era both): neither a verdict nor a flag of one case,
	// it comes from [EraComparison].
	Era      bool
	Severity Severity
	// Title heads the code in reports: "Server crashed".
	Title string
	// Message opens every finding of the code; the case's detail follows.
	Message string
	// Fix says what the server's author should do about it.
	Fix string
	// FailOn is the --fail-on kind that gates on the code.
	FailOn string
	// SecuritySeverity is the code's score in GitHub code scanning's
	// security-severity scale (over 0.0 up to 10.0, as text: "7.5"; 9.0 and
	// over is critical, 7.0 high, 4.0 medium, else low), for a code that an
	// attacker can cause or use; "" for one about reliability or
	// conformance, which code scanning then does not count as security.
	SecuritySeverity string
	// CWE is the weakness the code is an instance of ("CWE-400"), or "".
	CWE string
	// Exploit is true for a security flaw a payload proved by its
	// evidence (docs/BEHAVIOUR.md#security-cases): a case flag named after
	// its payload family. Any of them caps the grade at F.
	Exploit bool
}

// CodeEraDifference is the code of a case whose verdict differs between
// the protocol eras (see [EraComparison]).
const CodeEraDifference = "era_difference"

// codes lists every finding code, worst first: reports order findings of one
// severity by their position here.
var codes = []Code{
	{Name: FlagCommandInjection, Flag: true, Exploit: true, Severity: SeverityCritical, FailOn: FlagCommandInjection, SecuritySeverity: "9.8", CWE: "CWE-78",
		Title:   "Command injection",
		Message: "a shell command placed in an argument ran on the server",
		Fix:     "Never build a shell command line from arguments: run the program directly with its arguments as a list (no shell), put \"--\" before operands, and validate values against what the tool needs."},
	{Name: FlagCodeInjection, Flag: true, Exploit: true, Severity: SeverityCritical, FailOn: FlagCodeInjection, SecuritySeverity: "9.8", CWE: "CWE-94",
		Title:   "Code injection",
		Message: "an expression placed in an argument was evaluated by the server",
		Fix:     "Do not pass arguments to eval, a code runner or a template engine as code: parse only what the tool needs (e.g. an arithmetic grammar) or render user text as data."},
	{Name: FlagSQLInjection, Flag: true, Exploit: true, Severity: SeverityCritical, FailOn: FlagSQLInjection, SecuritySeverity: "9.1", CWE: "CWE-89",
		Title:   "SQL injection",
		Message: "an argument is part of an SQL query's text",
		Fix:     "Pass arguments to the database as bound parameters (placeholders), never by formatting them into the query's text."},
	{Name: FlagPathTraversal, Flag: true, Exploit: true, Severity: SeverityCritical, FailOn: FlagPathTraversal, SecuritySeverity: "7.5", CWE: "CWE-22",
		Title:   "Path traversal",
		Message: "a path placed in an argument reached a file outside the directory it should be confined to",
		Fix:     "Resolve the path (symlinks included: realpath) and check that the result lies inside the allowed directory, comparing whole path segments; refuse absolute paths and encoded forms."},
	{Name: FlagSSRF, Flag: true, Exploit: true, Severity: SeverityCritical, FailOn: FlagSSRF, SecuritySeverity: "8.6", CWE: "CWE-918",
		Title:   "Server-side request forgery",
		Message: "a URL placed in an argument made the server request a loopback address",
		Fix:     "Resolve the host and refuse loopback, private, link-local and unspecified addresses at connection time (so that redirects and other spellings of an address are refused too), and allow only the schemes the tool needs."},
	{Name: string(Crash), Severity: SeverityCritical, FailOn: "crash", SecuritySeverity: "7.5", CWE: "CWE-248",
		Title:   "Server crashed",
		Message: "the server crashed",
		Fix:     "Catch errors in tool handlers and return a result with isError: true instead of exiting, closing the connection or answering with an internal error."},
	{Name: string(Hang), Severity: SeverityCritical, FailOn: "hang", SecuritySeverity: "5.3", CWE: "CWE-400",
		Title:   "Server did not answer",
		Message: "the server did not answer",
		Fix:     "Bound every tool call with a timeout and answer (isError: true) when work cannot finish; never block on bad input."},
	{Name: string(ProtocolViolation), Severity: SeverityCritical, FailOn: "protocol",
		Title:   "Protocol violation",
		Message: "the server broke the protocol",
		Fix:     "Write only JSON-RPC messages to stdout (logs go to stderr) and answer every request exactly once with its own id."},
	{Name: FlagLeak, Flag: true, Severity: SeverityCritical, FailOn: "leak", SecuritySeverity: "7.5", CWE: "CWE-200",
		Title:   "Internals leaked",
		Message: "the answer leaks internals",
		Fix:     "Do not echo stack traces, file paths or secrets in results or error messages; log them to stderr instead."},
	{Name: string(Accepted), Severity: SeverityError, FailOn: "accepted", SecuritySeverity: "5.3", CWE: "CWE-20",
		Title:   "Forbidden input accepted",
		Message: "input the schema forbids was accepted silently",
		Fix:     "Validate arguments against the declared inputSchema before acting and reject bad input with isError: true and a message saying what is wrong."},
	{Name: string(OutputViolation), Severity: SeverityError, FailOn: "output_violation",
		Title:   "Result breaks outputSchema",
		Message: "the result does not match the declared outputSchema",
		Fix:     "Make structuredContent match the declared outputSchema, or fix the schema."},
	{Name: CodeConcurrencyFailure, Check: true, Severity: SeverityError, FailOn: "concurrency",
		Title:   "Fails under concurrent calls",
		Message: "the same valid call failed when made at once from several sessions",
		Fix:     "Guard state shared between calls, sessions or processes (files, caches, connections) with locks or per-call copies, and answer a call that must wait with isError rather than failing it: clients call tools concurrently."},
	{Name: CodeEraDifference, Era: true, Severity: SeverityError, FailOn: CodeEraDifference,
		Title:   "Validation differs by protocol era",
		Message: "the server judged the same input differently in the two protocol eras",
		Fix:     "Run the same validation and error handling for tools/call in both eras (the server/discover and the initialize code paths): one of them lacks a check or lets an error escape."},
	{Name: CodeStaleRead, Check: true, Severity: SeverityError, FailOn: CodeStaleRead, SecuritySeverity: "4.3", CWE: "CWE-459",
		Title:   "Deleted resource still readable",
		Message: "a resource was still readable after its delete tool succeeded",
		Fix:     "Make the delete tool remove what it says it deleted (or answer isError when it cannot), and make the read tool answer isError for an id that no longer exists: a model that deleted something must not find it again."},
	{Name: CodeHandshakeRequired, Check: true, Severity: SeverityError, FailOn: "handshake",
		Title:   "Stateless era claimed, handshake required",
		Message: "the server claims the stateless era in server/discover but refuses requests without initialize",
		Fix:     "Serve every request that carries the _meta envelope without an initialize handshake, or do not list 2026-07-28 in supportedVersions: stateless clients cannot fall back once discover succeeded."},
	{Name: FlagStderrPanic, Flag: true, Severity: SeverityWarning, FailOn: "stderr_panic",
		Title:   "Panic on stderr",
		Message: "the server printed a panic or uncaught exception on stderr",
		Fix:     "Recover from panics and uncaught exceptions in handlers and turn them into isError results."},
	{Name: string(Errored), Severity: SeverityWarning, FailOn: "errored",
		Title:   "Valid call failed",
		Message: "the valid call failed",
		Fix:     "Check that the tool works with schema-valid input; give realistic example arguments in .mcp-fuzz.yml if the generated ones are synthetic."},
	{Name: string(EmptySuccess), Severity: SeverityWarning, FailOn: "empty_success",
		Title:   "Empty success",
		Message: "the valid call succeeded with no content",
		Fix:     "Return content that tells the model what happened, even when there is nothing to return."},
	{Name: FlagSlow, Flag: true, Severity: SeverityWarning, FailOn: "slow",
		Title:   "Slow valid call",
		Message: "the valid call is slow",
		Fix:     "Speed up the tool or report progress; models and clients time out on slow calls."},
	{Name: FlagBloated, Flag: true, Severity: SeverityWarning, FailOn: "bloated",
		Title:   "Bloated answer",
		Message: "the valid answer is bloated",
		Fix:     "Return less: paginate, summarise or truncate large results, which waste the model's context."},
	{Name: CodeEnvelopeIgnored, Check: true, Severity: SeverityWarning, FailOn: "envelope", SecuritySeverity: "4.3", CWE: "CWE-20",
		Title:   "Broken request envelope served",
		Message: "a request with a broken envelope or routing header was served as if it were valid",
		Fix:     "Check io.modelcontextprotocol/protocolVersion and clientCapabilities in every request's _meta (and, over HTTP, that MCP-Protocol-Version, Mcp-Method and Mcp-Name match the body) before acting; never carry them over from earlier requests."},
	{Name: CodeWrongErrorCode, Check: true, Severity: SeverityWarning, FailOn: "error_code",
		Title:   "Refused with the wrong error code",
		Message: "the request was refused, but not with the error the specification names",
		Fix:     "Answer an unsupported protocol version with -32022 and data.supported, a header that contradicts the body with -32020 (HTTP 400): clients decide what to do next from these codes."},
	{Name: CodeMissingResultType, Check: true, Severity: SeverityWarning, FailOn: "result_type",
		Title:   "Result without resultType",
		Message: "results of the stateless era lack resultType",
		Fix:     "Put resultType (\"complete\", or \"input_required\" with inputRequests or requestState) in every result of a 2026-07-28 request; the current SDKs do it for you."},
	{Name: CodeMissingCacheHints, Check: true, Severity: SeverityWarning, FailOn: "cache_hints",
		Title:   "List without cache hints",
		Message: "list results lack valid ttlMs and cacheScope",
		Fix:     "Return ttlMs (a freshness hint in milliseconds, a non-negative integer) and cacheScope (\"public\" or \"private\") on tools/list, prompts/list, resources/list, resources/templates/list and resources/read results."},
	{Name: CodeRemovedMethodServed, Check: true, Severity: SeverityWarning, FailOn: "removed_method",
		Title:   "Removed method still served",
		Message: "a method the stateless era removed was served",
		Fix:     "Answer ping and logging/setLevel with -32601 in the 2026-07-28 era (liveness is the transport's; log levels go in each request's _meta)."},
	{Name: CodeLegacyErrorCode, Check: true, Severity: SeverityWarning, FailOn: "legacy_code",
		Title:   "Superseded error code",
		Message: "an error code the stateless era replaced or reserves was used",
		Fix:     "Use -32602 for a resource that does not exist (not -32002), -32020/-32021/-32022 for header mismatch, missing capability and unsupported version, and no other code from -32020 to -32099."},
	{Name: CodeSessionIssued, Check: true, Severity: SeverityWarning, FailOn: "session",
		Title:   "Session id in the stateless era",
		Message: "the server handed out a session id to a stateless request",
		Fix:     "Do not mint or echo Mcp-Session-Id for 2026-07-28 requests: the revision has no sessions, and state that spans requests needs an explicit identifier in the request."},
	{Name: CodeUndeclaredInputRequest, Check: true, Severity: SeverityWarning, FailOn: "input_request",
		Title:   "Input request the client did not declare",
		Message: "the server asked the client for input it did not declare, or outside the requests that allow it",
		Fix:     "Send inputRequests only of kinds the request's clientCapabilities declare, only on tools/call, prompts/get and resources/read, and never as server-initiated JSON-RPC requests."},
	{Name: CodeAuthMetadata, Check: true, Severity: SeverityWarning, FailOn: "auth_metadata",
		Title:   "Authorization metadata out of date",
		Message: "the authorization server metadata does not follow the current revision",
		Fix:     "Advertise client ID metadata documents (client_id_metadata_document_supported) rather than dynamic client registration alone, and set authorization_response_iss_parameter_supported: true (RFC 9207)."},
	{Name: CodeBadRequestServed, Check: true, Severity: SeverityWarning, FailOn: "bad_request",
		Title:   "Bad request served",
		Message: "a request for something that does not exist, or with a missing or wrong-typed argument, was served",
		Fix:     "Refuse an unknown method, tool, prompt or resource, a cursor you never handed out and a missing or wrong-typed argument with a JSON-RPC error (-32601 or -32602) or, for a tool, isError: true."},
	{Name: CodeProtocolDeviation, Check: true, Severity: SeverityWarning, FailOn: "deviation",
		Title:   "Protocol deviation",
		Message: "the server answered a malformed or unusual request other than the specification says",
		Fix:     "Answer every request with an id, even a malformed one (-32600 or -32602 when its params are not an object), with the code the specification names; answer no notification; keep -32603 for real internal errors."},
	{Name: string(GeneratorGap), Severity: SeverityInfo, FailOn: "generator_gap",
		Title:   "No valid input generated",
		Message: "mcp-fuzz could not generate arguments that satisfy the schema",
		Fix:     "Simplify the inputSchema or give example arguments in .mcp-fuzz.yml so the tool can be exercised."},
	{Name: CodeOrphanReadable, Check: true, Severity: SeverityInfo, FailOn: CodeOrphanReadable,
		Title:   "Child readable after its parent was deleted",
		Message: "a child resource was still readable after its parent was deleted (an observation, not a defect: some servers keep children on purpose)",
		Fix:     "If children cannot outlive their parent in your model, delete them with it (or refuse to delete a parent that has children); if they can, say so in the delete tool's description."},
	{Name: CodeEnvelopeLenient, Check: true, Severity: SeverityInfo, FailOn: "envelope_lenient",
		Title:   "Malformed optional envelope field served",
		Message: "a request with a malformed optional field was served as if it were valid",
		Fix:     "Reject malformed _meta fields with -32602; protect requestState's integrity (HMAC or AEAD) unless tampering can cause nothing worse than a failed request."},
	{Name: CodeDeprecatedFeature, Check: true, Severity: SeverityInfo, FailOn: "deprecated",
		Title:   "Deprecated feature in use",
		Message: "the server uses a feature the current revision deprecates",
		Fix:     "Move off roots, sampling, logging notifications and the HTTP+SSE transport: they still work but are eligible for removal."},
}

// The codes of protocol checks (see [Check]); a check that broke the
// server has the verdict's code instead.
const (
	CodeEnvelopeIgnored = "envelope_ignored"
	CodeWrongErrorCode  = "wrong_error_code"
	CodeEnvelopeLenient = "envelope_lenient"

	CodeHandshakeRequired      = "handshake_required"
	CodeMissingResultType      = "missing_result_type"
	CodeMissingCacheHints      = "missing_cache_hints"
	CodeRemovedMethodServed    = "removed_method_served"
	CodeLegacyErrorCode        = "legacy_error_code"
	CodeSessionIssued          = "session_issued"
	CodeUndeclaredInputRequest = "undeclared_input_request"
	CodeAuthMetadata           = "auth_metadata"
	CodeDeprecatedFeature      = "deprecated_feature"
	CodeBadRequestServed       = "bad_request_served"
	CodeProtocolDeviation      = "protocol_deviation"
	// CodeConcurrencyFailure is the code of a concurrency check
	// (--concurrency) whose calls failed together although the call
	// succeeded alone.
	CodeConcurrencyFailure = "concurrency_failure"
)

// The codes of the lifecycle checks (--sequential, docs/BEHAVIOUR.md#checks-beyond-single-calls): a resource
// read successfully after its delete, and a child read successfully after
// its parent's delete (an observation).
const (
	CodeStaleRead      = "stale_read"
	CodeOrphanReadable = "orphan_readable"
)

// Codes returns every finding code, worst first.
func Codes() []Code { return slices.Clone(codes) }

// LookupCode returns the code named name (a verdict or a flag); ok is false
// for verdicts that are not findings (ok, handled, ...) and unknown names.
func LookupCode(name string) (c Code, ok bool) {
	i := slices.IndexFunc(codes, func(c Code) bool { return c.Name == name })
	if i < 0 {
		return Code{}, false
	}
	return codes[i], true
}

// DescribeCode is [LookupCode] with a generic title and fix for a code this
// version does not know (a report from a newer one).
func DescribeCode(name string) Code {
	if c, ok := LookupCode(name); ok {
		return c
	}
	return Code{Name: name, Title: name, Fix: "See the findings with code " + strconv.Quote(name) + " for details."}
}

// CodeRank is the position of a code in [Codes], unknown codes last.
func CodeRank(name string) int {
	if i := slices.IndexFunc(codes, func(c Code) bool { return c.Name == name }); i >= 0 {
		return i
	}
	return len(codes)
}
