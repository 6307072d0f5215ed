package leak

import (
	"regexp"
	"slices"
	"strings"
)

// Kinds of [Match].
const (
	KindStackTrace  = "stack_trace"
	KindSourcePath  = "source_path"
	KindSecretToken = "secret_token"
	KindSecretValue = "secret_value"
)

// A pattern is one shape of leak.
//
// Every regexp starts with a literal. Scanning looks for the literal with a
// substring search, checks what comes before it (lead: a line start, white space,
// not a word character; in code, since it would hide the literal in the regexp),
// and only then runs the regexp, anchored there, on a bounded window. So the work
// is linear in the text, and a MiB takes milliseconds.
type pattern struct {
	kind, detail string
	re           *regexp.Regexp
	lead         lead
	// needs, when set, lists substrings of which every match contains one: a text
	// with none of them is skipped without running the regexp.
	needs []string
	// window bounds the bytes the regexp looks at from a candidate, which is also
	// never past the end of its line: 0 means defaultWindow, -1 the rest of the text
	// (for a multi-line regexp that cannot fail once its literal matched).
	window int

	lit      string         // the literal prefix of re
	anchored *regexp.Regexp // re, matching only at the start of its input
}

// defaultWindow is longer than a stack frame or a token. (The regexp's cost per
// candidate grows with the window.)
const defaultWindow = 512

// lead is what a match requires just before it. Text may be plain or
// JSON-escaped (a stack trace inside a JSON string has "\n" for its newlines), so
// escaped line breaks count as line breaks.
type lead int

const (
	anyLead     lead = iota
	wordStart        // not after a letter, digit, '_' or '-' (tokens contain those), except an escape like `\n`
	lineStart        // at the start of a line
	spaceBefore      // at the start of a line or after white space
	pathStart        // where a path can start: not after ':', '/' or a word character, so that URLs never qualify
	driveLetter      // the match starts at the ':' of "C:\": the drive letter and a path start come before it
)

const (
	// a source file's extension
	sourceExt = `(?:py|pyw|js|mjs|cjs|jsx|ts|mts|cts|tsx|go|rs|java|kt|kts|scala|groovy|clj|cljs|cs|fs|vb|rb|php|pl|pm|c|h|cc|cpp|cxx|hpp|hh|m|mm|swift|dart|ex|exs|erl|lua|jl|sh|bash|ps1|hs|ml|zig|nim|cr|vue|svelte|coffee)`
	// a line number after a path: ":12", ":12:5", ":line 12", "(12)", "(12,5)",
	// " on line 12", `", line 12` (Python)
	lineNumber = `(?::\d+(?::\d+)?|:line \d+|\(\d+(?:,\d+)?\)| on line \d+|\\?", line \d+)`
	// a Windows path after its drive letter: `:\dir\file.ext`, also with `\\` or `/`
	windowsPath = `:(?:\\{1,2}|/)(?:[^\\/:*?"<>|\r\n]+(?:\\{1,2}|/))*[^\\/:*?"<>|\r\n]+\.`
)

var patterns = []pattern{
	// Python
	{kind: KindStackTrace, detail: "Python traceback", re: regexp.MustCompile(`Traceback \(most recent call last\):`)},
	{kind: KindStackTrace, detail: "Python traceback", re: regexp.MustCompile(`File \\?"(?:[^"\n]*?\.pyw?|<[^>"\n]+>)\\?", line \d+`), window: 1024},

	// Go
	{kind: KindStackTrace, detail: "Go panic", re: regexp.MustCompile(`panic: \S`), lead: lineStart},
	{kind: KindStackTrace, detail: "Go panic", re: regexp.MustCompile(`goroutine \d+ \[[a-zA-Z][^\]\n]{0,80}\]:`), lead: wordStart},
	{kind: KindStackTrace, detail: "Go panic", re: regexp.MustCompile(`\.go:\d+ \+0x[0-9a-f]+`)},

	// Node.js (and Deno, Bun)
	{kind: KindStackTrace, detail: "Node stack frame", re: regexp.MustCompile(`at (?:async )?(?:new )?[^\s()]+(?: \[as [^\]\s]+\])? \([^()\n]*?[/\\.][^()\n]*?:\d+:\d+\)`), lead: spaceBefore},
	{kind: KindStackTrace, detail: "Node stack frame", re: regexp.MustCompile(`at (?:async )?(?:file://)?(?:/|[A-Za-z]:\\{1,2}|node:)[^\s()]*:\d+:\d+`), lead: spaceBefore},
	{kind: KindStackTrace, detail: "Node stack frame", re: regexp.MustCompile(`node:internal/[\w./-]+`), lead: wordStart},

	// Java, Kotlin, Scala
	{kind: KindStackTrace, detail: "Java stack frame", re: regexp.MustCompile(`at (?:[\w$.-]+/)*(?:[\w$]+\.)+[\w$<>]+\((?:[\w$-]+\.(?:java|kt|kts|scala|groovy|clj)(?::\d+)?|Native Method|Unknown Source)\)`), lead: spaceBefore,
		needs: []string{".java", ".kt", ".scala", ".groovy", ".clj", "(Native Method)", "(Unknown Source)"}},

	// .NET
	{kind: KindStackTrace, detail: ".NET stack frame", re: regexp.MustCompile("at [\\w.`<>\\[\\]+,]+\\([^()\\n]*\\) in [^\\n()]*?:line \\d+"), lead: spaceBefore, window: 1024,
		needs: []string{":line "}},

	// Rust
	{kind: KindStackTrace, detail: "Rust panic", re: regexp.MustCompile(`panicked at (?:'[^'\n]*', )?[^\s:'"]+\.rs:\d+:\d+`)},

	// PHP
	{kind: KindStackTrace, detail: "PHP stack frame", re: regexp.MustCompile(`#\d+ (?:/|[A-Za-z]:\\)[^\n(#]*\.php\(\d+\): `), lead: lineStart},

	// Absolute source paths with a line number
	{kind: KindSourcePath, detail: "absolute source path", re: regexp.MustCompile(`/(?:[\w.@+~-]+/)*[\w.@+~-]+\.` + sourceExt + lineNumber), lead: pathStart, window: 1024},
	{kind: KindSourcePath, detail: "absolute source path", re: regexp.MustCompile(windowsPath + sourceExt + lineNumber), lead: driveLetter, window: 1024},

	// Secret-shaped tokens
	{kind: KindSecretToken, detail: "AWS access key ID", re: regexp.MustCompile(`AKIA[0-9A-Z]{16}\b`), lead: wordStart},
	{kind: KindSecretToken, detail: "AWS access key ID", re: regexp.MustCompile(`ASIA[0-9A-Z]{16}\b`), lead: wordStart},
	{kind: KindSecretToken, detail: "GitHub token", re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}\b`), lead: wordStart},
	{kind: KindSecretToken, detail: "GitHub token", re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{22,}\b`), lead: wordStart},
	{kind: KindSecretToken, detail: "Slack token", re: regexp.MustCompile(`xox[abprs]-[A-Za-z0-9-]{10,}`), lead: wordStart},
	{kind: KindSecretToken, detail: "JWT", re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{8,}`), lead: wordStart, window: 16 << 10},
	{kind: KindSecretToken, detail: "private key", re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z)`), window: -1},
	{kind: KindSecretToken, detail: "Google API key", re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`), lead: wordStart},
	{kind: KindSecretToken, detail: "Stripe secret key", re: regexp.MustCompile(`sk_live_[0-9A-Za-z]{20,}`), lead: wordStart},
	{kind: KindSecretToken, detail: "Stripe secret key", re: regexp.MustCompile(`rk_live_[0-9A-Za-z]{20,}`), lead: wordStart},
	{kind: KindSecretToken, detail: "Anthropic API key", re: regexp.MustCompile(`sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}`), lead: wordStart},
	{kind: KindSecretToken, detail: "OpenAI API key", re: regexp.MustCompile(`sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}`), lead: wordStart},
	{kind: KindSecretToken, detail: "OpenAI API key", re: regexp.MustCompile(`sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}`), lead: wordStart},
	{kind: KindSecretToken, detail: "npm token", re: regexp.MustCompile(`npm_[A-Za-z0-9]{36}\b`), lead: wordStart},
}

// tokenPatterns are the patterns whose matches are secrets themselves: they are
// redacted wherever they appear.
var tokenPatterns []*pattern

func init() {
	for i := range patterns {
		p := &patterns[i]
		p.lit, _ = p.re.LiteralPrefix()
		if p.lit == "" {
			panic("leak: pattern without a literal prefix: " + p.re.String())
		}
		p.anchored = regexp.MustCompile(`^(?:` + p.re.String() + `)`)
		if p.window == 0 {
			p.window = defaultWindow
		}
		if p.kind == KindSecretToken {
			tokenPatterns = append(tokenPatterns, p)
		}
	}
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// escapedBefore reports whether text[:i] ends in a backslash escape of one of the
// letters in chars, like the `\n` of JSON.
func escapedBefore(text string, i int, chars string) bool {
	return i >= 2 && text[i-2] == '\\' && strings.IndexByte(chars, text[i-1]) >= 0
}

// begin returns where a match found at start really begins, and whether what
// comes before it is what p.lead requires.
func (p *pattern) begin(text string, start int) (int, bool) {
	if start == 0 {
		return start, p.lead != driveLetter
	}
	prev := text[start-1]
	switch p.lead {
	case wordStart:
		return start, !isWordByte(prev) && prev != '-' || escapedBefore(text, start, "nrtbf")
	case lineStart:
		return start, prev == '\n' || prev == '\r' || escapedBefore(text, start, "nr")
	case spaceBefore:
		return start, strings.IndexByte(" \t\n\r\v\f", prev) >= 0 || escapedBefore(text, start, "nrt")
	case pathStart:
		return start, strings.IndexByte(" \t\n\r\"'([{<=,;|", prev) >= 0 ||
			escapedBefore(text, start, `nrt"`) || strings.HasSuffix(text[:start], "file://")
	case driveLetter:
		if !isLetter(prev) {
			return start, false
		}
		p2 := pattern{lead: pathStart}
		return p2.begin(text, start-1)
	}
	return start, true
}

// each calls fn with the start and end of every leak of p in text, left to right,
// until fn returns false.
func (p *pattern) each(text string, fn func(start, end int) bool) {
	if len(p.needs) > 0 && !slices.ContainsFunc(p.needs, func(n string) bool { return strings.Contains(text, n) }) {
		return
	}
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], p.lit)
		if i < 0 {
			return
		}
		i += pos
		pos = i + 1
		start, ok := p.begin(text, i)
		if !ok {
			continue
		}
		end := len(text)
		if p.window > 0 { // these patterns never span lines
			end = min(end, i+p.window)
			if nl := strings.IndexByte(text[i:end], '\n'); nl >= 0 {
				end = i + nl
			}
		}
		loc := p.anchored.FindStringIndex(text[i:end])
		if loc == nil {
			continue
		}
		if !fn(start, i+loc[1]) {
			return
		}
		pos = i + max(loc[1], 1)
	}
}

// first returns the leftmost leak of p in text.
func (p *pattern) first(text string) (start, end int, ok bool) {
	p.each(text, func(s, e int) bool {
		start, end, ok = s, e, true
		return false
	})
	return start, end, ok
}
