package report

// EraComparison is what an `--era both` run found by auditing the server a
// second time, in the other protocol era: the report's own Tools, Findings
// and score are those of the first audit (the modern era, unless the
// server speaks only the legacy one), and this records the other audit's
// result and every case whose verdict differed.
type EraComparison struct {
	// Era is the other era: "legacy", or "modern" when the report's own
	// audit is the legacy one.
	Era string `json:"era" jsonschema:"enum=modern,enum=legacy"`
	// ProtocolVersion is the version negotiated in the other era; empty
	// when it was not audited.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Graded, Score, Grade and Summary are the other audit's own, as
	// [Report] has them; Summary is zero when it was not audited.
	Graded  bool    `json:"graded"`
	Score   *int    `json:"score" jsonschema:"oneof_type=integer;null"`
	Grade   *string `json:"grade" jsonschema:"oneof_type=string;null"`
	Summary Summary `json:"summary"`
	// Compared is how many cases ran in both eras with the same arguments:
	// those whose verdicts were compared.
	Compared int `json:"compared"`
	// Differences are the compared cases whose verdict, or leak flag,
	// differs between the eras; each is also an era_difference finding.
	Differences []EraDifference `json:"differences"`
	// ToolsOnlyInOtherEra are the tools the other era lists and the
	// report's own does not, in the other era's order; their cases are in
	// no comparison, but their failures are in Failures.
	ToolsOnlyInOtherEra []string `json:"toolsOnlyInOtherEra"`
	// ToolsMissingInOtherEra are the report's own tools the other era does
	// not list, in the report's order.
	ToolsMissingInOtherEra []string `json:"toolsMissingInOtherEra"`
	// Failures are the failing cases of the other era's audit that the
	// report's own audit does not fail the same way: a crash, hang or
	// protocol violation, or a leak, seen only there, whether its tool is
	// listed in both eras or only in the other. Each failure is also a
	// finding of its own code, with an id ending in "@" and the era
	// ("search/null/q#crash@legacy"), and counts for the caps and the
	// critical callout as one of the report's own audit does.
	Failures []EraFailure `json:"failures"`
	// Note says why the eras were not compared (the server speaks only
	// one, or the second audit was interrupted), or what limits the
	// comparison; empty when there is nothing to say.
	Note string `json:"note,omitempty"`
}

// EraDifference is one case judged differently in the two eras.
type EraDifference struct {
	Tool   string `json:"tool"`
	CaseID string `json:"caseId"`
	Kind   string `json:"kind"`
	// Modern and Legacy are what the case got in each era.
	Modern EraOutcome `json:"modern"`
	Legacy EraOutcome `json:"legacy"`
}

// EraFailure is a case of the other era's audit that failed there in a
// way the report's own audit did not see.
type EraFailure struct {
	Tool string `json:"tool"`
	// Codes are the finding codes of the failures seen only in the other
	// era: crash, hang or protocol_violation (the case's verdict), and
	// leak.
	Codes []string `json:"codes"`
	// Case is the case as the other era's audit ran and judged it: what
	// `mcp-fuzz replay REPORT CASE-ID --era ERA` sends again.
	Case Case `json:"case"`
}

// EraFailureID is the id of the finding of failure code on case caseID
// seen only in era: "search/null/q#crash@legacy".
func EraFailureID(caseID, code, era string) string {
	return caseID + "#" + code + "@" + era
}

// EraOutcome is a case's judgement in one era, from that era's report:
// its detail was redacted and cut when the case was judged.
type EraOutcome struct {
	Verdict   Verdict `json:"verdict"`
	ErrorCode *int64  `json:"errorCode,omitempty"`
	// Crash is how a crash happened (see [CrashInfo.How]).
	Crash  string `json:"crash,omitempty"`
	Leak   bool   `json:"leak,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Audited reports whether the server was audited in the other era: it
// then has the version negotiated there (a report holds none of a server
// that never answered the handshake).
func (e *EraComparison) Audited() bool { return e.ProtocolVersion != "" }

// Failure reports whether o is a failure the score counts: a crash, hang
// or protocol violation, or a leak.
func (o EraOutcome) Failure() bool { return o.Verdict.Failure() || o.Leak }

// Outcome returns the side of d that era names ("modern" or "legacy").
func (d EraDifference) Outcome(era string) EraOutcome {
	if era == EraModern {
		return d.Modern
	}
	return d.Legacy
}

// normalize bounds what e holds of the server's words, as [Report.Normalize]
// does for the report's own, and gives it an empty list of differences
// rather than none.
func (e *EraComparison) normalize() {
	if e == nil {
		return
	}
	e.Era = capText(e.Era, MaxStoredName)
	e.ProtocolVersion = capText(e.ProtocolVersion, MaxStoredName)
	e.Note = capText(e.Note, MaxStoredText)
	if e.Differences == nil {
		e.Differences = []EraDifference{}
	}
	if e.ToolsOnlyInOtherEra == nil {
		e.ToolsOnlyInOtherEra = []string{}
	}
	if e.ToolsMissingInOtherEra == nil {
		e.ToolsMissingInOtherEra = []string{}
	}
	for i, n := range e.ToolsOnlyInOtherEra {
		e.ToolsOnlyInOtherEra[i] = capText(n, MaxStoredToolName)
	}
	for i, n := range e.ToolsMissingInOtherEra {
		e.ToolsMissingInOtherEra[i] = capText(n, MaxStoredToolName)
	}
	if e.Failures == nil {
		e.Failures = []EraFailure{}
	}
	for i := range e.Failures {
		f := &e.Failures[i]
		f.Tool = capText(f.Tool, MaxStoredToolName)
		f.Case.normalize()
	}
	for i := range e.Differences {
		d := &e.Differences[i]
		d.Tool = capText(d.Tool, MaxStoredToolName)
		d.Modern.Detail = capText(d.Modern.Detail, MaxStoredText)
		d.Legacy.Detail = capText(d.Legacy.Detail, MaxStoredText)
	}
}
