package render

// ANSI SGR styles of the terminal output ([Terminal]).
const (
	ansiReset   = "\x1b[0m"
	ansiBold    = "\x1b[1m"
	ansiDim     = "\x1b[2m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiCyan    = "\x1b[36m"
	ansiBoldRed = "\x1b[1;31m" // one sequence, unlike ansiRed+ansiBold
)

// ansi paints text with a style when colour is on, and returns it as it is
// when colour is off. It is the one place terminal output is coloured.
type ansi bool

// paint wraps s in style and a reset; an empty s stays empty.
func (on ansi) paint(style, s string) string {
	if !on || s == "" {
		return s
	}
	return style + s + ansiReset
}

func gradeStyle(grade string) string {
	switch grade {
	case "A", "B":
		return ansiGreen
	case "C":
		return ansiYellow
	}
	return ansiRed
}

func scoreStyle(score int) string {
	switch {
	case score >= 75:
		return ansiGreen
	case score >= 60:
		return ansiYellow
	}
	return ansiRed
}

// toneStyle is the style of a verdict, severity or score of tone t: bold
// red for failures, red and bold for critical and error findings, red for
// accepted bad input and broken output, yellow for doubtful outcomes and
// warnings, dim for info, green for good outcomes.
func toneStyle(t tone) string {
	switch t {
	case toneFailed:
		return ansiBoldRed
	case toneSevere:
		return ansiRed + ansiBold
	case toneBad:
		return ansiRed
	case toneFair:
		return ansiYellow
	case toneMinor:
		return ansiDim
	}
	return ansiGreen
}
