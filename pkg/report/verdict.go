package report

// Verdict is the judgement of one call (SPEC §6).
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

// NotRun marks a case that was planned but never sent.
const NotRun Verdict = "not_run"

// Failure reports whether v is a robustness failure.
func (v Verdict) Failure() bool {
	return v == Crash || v == Hang || v == ProtocolViolation
}

// Flags, independent of the verdict.
const (
	FlagLeak        = "leak"
	FlagSlow        = "slow"
	FlagBloated     = "bloated"
	FlagStderrPanic = "stderr_panic"
)

// How a crash happened.
const (
	CrashExit          = "exit"
	CrashClosed        = "closed"
	CrashInternalError = "internal_error"
)
