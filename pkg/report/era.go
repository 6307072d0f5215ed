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
	if era == "modern" {
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
	for i := range e.Differences {
		d := &e.Differences[i]
		d.Tool = capText(d.Tool, MaxStoredToolName)
		d.Modern.Detail = capText(d.Modern.Detail, MaxStoredText)
		d.Legacy.Detail = capText(d.Legacy.Detail, MaxStoredText)
	}
}
