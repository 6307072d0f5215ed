package report

// Verdict is the judgement of one call (docs/BEHAVIOUR.md#the-oracle).
type Verdict string

// Verdicts of bad-input cases.
const (
	Handled           Verdict = "handled"            // isError result: the model can self-correct
	Rejected          Verdict = "rejected"           // JSON-RPC invalid params/request
	Accepted          Verdict = "accepted"           // success on input the schema forbids
	Tolerated         Verdict = "tolerated"          // success on input the schema allows
	Crash             Verdict = "crash"              // internal error, closed connection, process exit
	Hang              Verdict = "hang"               // no answer within the call timeout
	ProtocolViolation Verdict = "protocol_violation" // malformed envelope, stray id, stdout garbage
)

// Verdicts of the valid case.
const (
	OK              Verdict = "ok"
	EmptySuccess    Verdict = "empty_success"
	OutputViolation Verdict = "output_violation"
	Errored         Verdict = "errored"
	GeneratorGap    Verdict = "generator_gap"
)

// Case kinds (docs/BEHAVIOUR.md#case-generation): the valid call, then the bad inputs internal/casegen
// derives from the schema.
const (
	KindValid           = "valid"
	KindMissingRequired = "missing_required"
	KindWrongType       = "wrong_type"
	KindNull            = "null"
	KindOutOfEnum       = "out_of_enum"
	KindOutOfRange      = "out_of_range"
	KindExtraProperty   = "extra_property"
	KindOversize        = "oversize"
	KindStructural      = "structural"
	KindProbe           = "probe"
	KindSecurity        = "security"
)

// NotRun marks a case that was planned but never sent.
const NotRun Verdict = "not_run"

// Verdicts lists every verdict: bad-input verdicts, valid-call verdicts,
// then [NotRun].
func Verdicts() []Verdict {
	return []Verdict{Handled, Rejected, Accepted, Tolerated, Crash, Hang, ProtocolViolation,
		OK, EmptySuccess, OutputViolation, Errored, GeneratorGap, NotRun}
}

// Failure reports whether v is a robustness failure.
func (v Verdict) Failure() bool {
	return v == Crash || v == Hang || v == ProtocolViolation
}

// Answered reports whether a valid call got a real answer, one that can be
// timed and sized.
func (v Verdict) Answered() bool {
	return v == OK || v == EmptySuccess || v == OutputViolation || v == Errored
}

// Confirms reports whether a valid call's verdict confirms the tool works,
// so that its rejections of bad input prove validation (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes).
func (v Verdict) Confirms() bool {
	return v == OK || v == EmptySuccess || v == OutputViolation
}

// Flags, independent of the verdict; each is a finding code (see [Codes]).
const (
	FlagLeak        = "leak"
	FlagSlow        = "slow"
	FlagBloated     = "bloated"
	FlagStderrPanic = "stderr_panic"

	// The security flaws a security case proved (see [Code.Exploit]),
	// named after their payload families.
	FlagPathTraversal    = "path_traversal"
	FlagCommandInjection = "command_injection"
	FlagCodeInjection    = "code_injection"
	FlagSQLInjection     = "sql_injection"
	FlagSSRF             = "ssrf"
)

// ProvedMarker follows an exploit code in a case's detail, before the
// evidence: "path_traversal proved: the answer holds …".
const ProvedMarker = "proved: "

// Flags lists every case flag: the catalogue's codes that are flags.
func Flags() []string {
	var out []string
	for _, c := range codes {
		if c.Flag {
			out = append(out, c.Name)
		}
	}
	return out
}

// How a crash happened.
const (
	CrashExit          = "exit"
	CrashClosed        = "closed"
	CrashInternalError = "internal_error"
)
