package report

// Summary counts verdicts and flags over the whole run.
type Summary struct {
	Cases             int `json:"cases"`
	Handled           int `json:"handled"`
	Rejected          int `json:"rejected"`
	Accepted          int `json:"accepted"`
	Tolerated         int `json:"tolerated"`
	Crash             int `json:"crash"`
	Hang              int `json:"hang"`
	ProtocolViolation int `json:"protocolViolation"`
	Leak              int `json:"leak"`
	OK                int `json:"ok"`
	EmptySuccess      int `json:"emptySuccess"`
	OutputViolation   int `json:"outputViolation"`
	Errored           int `json:"errored"`
	GeneratorGap      int `json:"generatorGap"`
	NotRun            int `json:"notRun"`
	// Unconfirmed counts handled or rejected bad inputs on tools whose valid
	// call did not succeed: they prove nothing about validation.
	Unconfirmed  int `json:"unconfirmed"`
	ToolsTested  int `json:"toolsTested"`
	ToolsSkipped int `json:"toolsSkipped"`
}

// Summarize counts the verdicts of tools.
func Summarize(tools []Tool) Summary {
	var s Summary
	for _, t := range tools {
		if !t.Tested {
			s.ToolsSkipped++
			continue
		}
		s.ToolsTested++
		for _, c := range t.Cases {
			s.Cases++
			s.count(c.Verdict)
			if (c.Verdict == Handled || c.Verdict == Rejected) && !t.Confirmed {
				s.Unconfirmed++
			}
			if c.HasFlag(FlagLeak) {
				s.Leak++
			}
		}
	}
	return s
}

func (s *Summary) count(v Verdict) {
	counters := map[Verdict]*int{
		Handled: &s.Handled, Rejected: &s.Rejected, Accepted: &s.Accepted, Tolerated: &s.Tolerated,
		Crash: &s.Crash, Hang: &s.Hang, ProtocolViolation: &s.ProtocolViolation,
		OK: &s.OK, EmptySuccess: &s.EmptySuccess, OutputViolation: &s.OutputViolation,
		Errored: &s.Errored, GeneratorGap: &s.GeneratorGap, NotRun: &s.NotRun,
	}
	if p, ok := counters[v]; ok {
		*p++
	}
}

// HasFlag reports whether c carries flag.
func (c Case) HasFlag(flag string) bool {
	for _, f := range c.Flags {
		if f == flag {
			return true
		}
	}
	return false
}
