package lint

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wellKnownTools are tool names a model has met many times, in the
// reference MCP servers and the common agents. A server's tool whose name
// only looks like one of them can receive the calls meant for it.
var wellKnownTools = []string{
	// filesystem
	"read_file", "read_text_file", "read_multiple_files", "write_file", "edit_file",
	"create_directory", "list_directory", "directory_tree", "move_file", "search_files",
	"get_file_info", "list_allowed_directories",
	// shells and agents
	"execute_command", "run_command", "run_terminal_cmd", "bash", "shell",
	// web
	"fetch", "web_search", "search",
	// GitHub
	"create_issue", "create_pull_request", "get_file_contents", "push_files",
	// databases
	"query", "sql_query",
	// messaging
	"send_email", "send_message",
	// memory, sequential thinking, everything
	"create_entities", "read_graph", "sequentialthinking", "get_env", "echo", "add",
}

// wellKnownFolds maps the folded spelling of each well-known name to it.
var wellKnownFolds = func() map[string]string {
	m := make(map[string]string, len(wellKnownTools))
	for _, name := range wellKnownTools {
		m[nameFold(name, 'l')] = name
	}
	return m
}()

// maxShadowShown bounds the runs of look-alike characters a message
// names; maxShadowChars the plain characters it quotes of each run, and
// maxShadowNamed the others it names.
const (
	maxShadowShown = 3
	maxShadowChars = 16
	maxShadowNamed = 4
)

// confusables maps letters of other scripts to the Latin letters they
// look like (capitals to lower case, like the folding). The capitals that
// look like "I" are in iLike instead.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's',
	'ԁ': 'd', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w',
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't',
	'У': 'y', 'Х': 'x', 'Ј': 'j', 'Ѕ': 's',
	// Greek
	'ο': 'o', 'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o', 'Ρ': 'p',
	'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	// digits
	'0': 'o', '1': 'l',
}

// iLike are the capitals that look like both "l" and an upper-case "i".
var iLike = map[rune]bool{'I': true, 'І': true, 'Ι': true, 'Ӏ': true}

// runeNames names the letters of confusables and iLike in messages.
var runeNames = map[rune]string{
	'а': "CYRILLIC SMALL LETTER A", 'е': "CYRILLIC SMALL LETTER IE", 'о': "CYRILLIC SMALL LETTER O",
	'р': "CYRILLIC SMALL LETTER ER", 'с': "CYRILLIC SMALL LETTER ES", 'у': "CYRILLIC SMALL LETTER U",
	'х': "CYRILLIC SMALL LETTER HA", 'і': "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I",
	'ј': "CYRILLIC SMALL LETTER JE", 'ѕ': "CYRILLIC SMALL LETTER DZE", 'ԁ': "CYRILLIC SMALL LETTER KOMI DE",
	'һ': "CYRILLIC SMALL LETTER SHHA", 'ԛ': "CYRILLIC SMALL LETTER QA", 'ԝ': "CYRILLIC SMALL LETTER WE",
	'А': "CYRILLIC CAPITAL LETTER A", 'В': "CYRILLIC CAPITAL LETTER VE", 'Е': "CYRILLIC CAPITAL LETTER IE",
	'К': "CYRILLIC CAPITAL LETTER KA", 'М': "CYRILLIC CAPITAL LETTER EM", 'Н': "CYRILLIC CAPITAL LETTER EN",
	'О': "CYRILLIC CAPITAL LETTER O", 'Р': "CYRILLIC CAPITAL LETTER ER", 'С': "CYRILLIC CAPITAL LETTER ES",
	'Т': "CYRILLIC CAPITAL LETTER TE", 'У': "CYRILLIC CAPITAL LETTER U", 'Х': "CYRILLIC CAPITAL LETTER HA",
	'Ј': "CYRILLIC CAPITAL LETTER JE", 'Ѕ': "CYRILLIC CAPITAL LETTER DZE",
	'І': "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I", 'Ӏ': "CYRILLIC LETTER PALOCHKA",
	'ο': "GREEK SMALL LETTER OMICRON", 'α': "GREEK SMALL LETTER ALPHA", 'ε': "GREEK SMALL LETTER EPSILON",
	'ι': "GREEK SMALL LETTER IOTA", 'κ': "GREEK SMALL LETTER KAPPA", 'ν': "GREEK SMALL LETTER NU",
	'ρ': "GREEK SMALL LETTER RHO", 'τ': "GREEK SMALL LETTER TAU", 'υ': "GREEK SMALL LETTER UPSILON",
	'χ': "GREEK SMALL LETTER CHI",
	'Α': "GREEK CAPITAL LETTER ALPHA", 'Β': "GREEK CAPITAL LETTER BETA", 'Ε': "GREEK CAPITAL LETTER EPSILON",
	'Ζ': "GREEK CAPITAL LETTER ZETA", 'Η': "GREEK CAPITAL LETTER ETA", 'Ι': "GREEK CAPITAL LETTER IOTA",
	'Κ': "GREEK CAPITAL LETTER KAPPA", 'Μ': "GREEK CAPITAL LETTER MU", 'Ν': "GREEK CAPITAL LETTER NU",
	'Ο': "GREEK CAPITAL LETTER OMICRON", 'Ρ': "GREEK CAPITAL LETTER RHO", 'Τ': "GREEK CAPITAL LETTER TAU",
	'Υ': "GREEK CAPITAL LETTER UPSILON", 'Χ': "GREEK CAPITAL LETTER CHI",
}

// nameToken is one character of a name (or the two of "rn"), at byte at,
// and what it folds to.
type nameToken struct {
	raw, fold string
	at        int
}

// nameTokens folds name character by character: its compatibility form
// (NFKC: fullwidth letters, ligatures, mathematical letters become plain
// ones), then lower case, the Latin look-alike of a Cyrillic or Greek
// letter, "o" for 0 and "l" for 1, "_" for each of "-", ".", " " and "_",
// and "m" for "rn". An "I" (and its look-alikes) folds to iAs: it looks
// like "l" and is an upper-case "i", so a name is folded both ways.
func nameTokens(name string, iAs rune) []nameToken {
	toks := make([]nameToken, 0, len(name))
	var sb strings.Builder
	for k, r := range name {
		sb.Reset()
		_, size := utf8.DecodeRuneInString(name[k:])
		compat := string(r)
		if r >= utf8.RuneSelf {
			compat = norm.NFKC.String(compat)
		}
		for _, c := range compat {
			switch {
			case iLike[c]:
				c = iAs
			case c == '-' || c == '.' || c == ' ' || c == '_':
				c = '_'
			default:
				if l, ok := confusables[c]; ok {
					c = l
				} else if l, ok := confusables[unicode.ToLower(c)]; ok {
					c = l
				} else {
					c = unicode.ToLower(c)
				}
			}
			sb.WriteRune(c)
		}
		tok := nameToken{raw: name[k : k+size], fold: sb.String(), at: k}
		if n := len(toks); n > 0 && toks[n-1].fold == "r" && tok.fold == "n" {
			prev := toks[n-1].at
			toks[n-1] = nameToken{raw: name[prev : k+size], fold: "m", at: prev}
			continue
		}
		toks = append(toks, tok)
	}
	return toks
}

// nameFold is the identity a name looks like, with "I" read as iAs.
func nameFold(name string, iAs rune) string {
	var sb strings.Builder
	for _, t := range nameTokens(name, iAs) {
		sb.WriteString(t.fold)
	}
	return sb.String()
}

// maxShadowName is the longest name, in bytes, compared: 128 characters
// (the most a valid name has) of 4 bytes each. A longer name is invalid
// anyway, and folding it would cost as much as the server likes.
const maxShadowName = 4 * 128

// nameFolds are both identities a name can look like: with "I" read as
// "l", and as "i" (the second only when it differs). A name longer than
// maxShadowName has none.
func nameFolds(name string) []string {
	if len(name) > maxShadowName {
		return nil
	}
	l := nameFold(name, 'l')
	if i := nameFold(name, 'i'); i != l {
		return []string{l, i}
	}
	return []string{l}
}

// nameStyle is name in lower case with "-", ".", " " and "_" alike: two
// names of the same style differ only in how they are written, not in
// what they look like.
func nameStyle(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '.', ' ':
			return '_'
		}
		return unicode.ToLower(r)
	}, name)
}

// foldIndex maps each folded identity of the listed tools to the first
// tool with it, built on first use.
type foldIndex struct {
	tools []Tool
	first map[string]int
}

// firstLike returns the first tool whose name folds like one of folds,
// or -1.
func (f *foldIndex) firstLike(folds []string) int {
	if f.first == nil {
		f.first = make(map[string]int, len(f.tools))
		for i, t := range f.tools {
			for _, s := range nameFolds(t.Name) {
				if _, ok := f.first[s]; !ok {
					f.first[s] = i
				}
			}
		}
	}
	j := -1
	for _, s := range folds {
		if i, ok := f.first[s]; ok && (j < 0 || i < j) {
			j = i
		}
	}
	return j
}

// checkShadowedName flags a tool whose name looks like another's without
// being it: like a tool listed before it by the same server, or like a
// well-known tool's name (read_file, bash, send_email, ...) spelled with
// look-alike characters. A model, and a person approving the call, cannot
// tell them apart, so calls meant for the other tool can reach this one.
// The well-known name itself, and a change of case or separators only
// (Read-File), are not flagged.
func checkShadowedName(t *toolInput) []hit {
	if t.Name == "" {
		return nil
	}
	const hint = "give the tool a name of its own in plain letters; a name that looks like another tool's lets it receive the calls meant for that tool"
	folds := nameFolds(t.Name)
	if j := t.folds.firstLike(folds); j >= 0 && j < t.index {
		if other := t.folds.tools[j].Name; other != t.Name {
			return []hit{{
				Pointer: "/name",
				Message: fmt.Sprintf("tool name %s looks like the name of tool %s at position %d of the same server%s", quote(t.Name), quote(other), j+1, lookAlikes(t.Name, other, quote(other), false)),
				Hint:    hint,
			}}
		}
	}
	for _, s := range folds {
		known, ok := wellKnownFolds[s]
		if !ok || nameStyle(t.Name) == nameStyle(known) {
			continue
		}
		return []hit{{
			Pointer: "/name",
			Message: fmt.Sprintf("tool name %s imitates the well-known tool name %s%s", quote(t.Name), quote(known), lookAlikes(t.Name, known, known, true)),
			Hint:    hint,
		}}
	}
	return nil
}

// lookAlikes says how name differs from target, which it folds like: ":
// U+0435 CYRILLIC SMALL LETTER IE where read_file has 'e'", for at most
// maxShadowShown runs of differing characters. With lookOnly, differences
// of case and separators are left out. It says nothing when the two do
// not line up.
func lookAlikes(name, target, targetRef string, lookOnly bool) string {
	for _, iAs := range []rune{'l', 'i'} {
		a, b := nameTokens(name, iAs), nameTokens(target, iAs)
		// runs are the differing stretches, as byte ranges of name and
		// target.
		var runs [][4]int
		adjacent := false
		i, j := 0, 0
		for i < len(a) && j < len(b) {
			i0, j0 := i, j
			fa, fb := a[i].fold, b[j].fold
			i, j = i+1, j+1
			for fa != fb && len(fa) != len(fb) {
				if len(fa) < len(fb) && i < len(a) {
					fa += a[i].fold
					i++
				} else if len(fb) < len(fa) && j < len(b) {
					fb += b[j].fold
					j++
				} else {
					break
				}
			}
			if fa != fb {
				runs = nil
				break
			}
			sa, ea := a[i0].at, a[i-1].at+len(a[i-1].raw)
			sb, eb := b[j0].at, b[j-1].at+len(b[j-1].raw)
			ra, rb := name[sa:ea], target[sb:eb]
			if ra == rb || lookOnly && nameStyle(ra) == nameStyle(rb) {
				adjacent = false
				continue
			}
			if adjacent {
				runs[len(runs)-1][1], runs[len(runs)-1][3] = ea, eb
			} else {
				runs = append(runs, [4]int{sa, ea, sb, eb})
			}
			adjacent = true
		}
		if len(runs) == 0 || i < len(a) || j < len(b) {
			continue
		}
		var diffs []string
		for _, r := range runs {
			d := describeChars(name[r[0]:r[1]]) + " where " + targetRef + " has " + describeChars(target[r[2]:r[3]])
			if slices.Contains(diffs, d) {
				continue
			}
			if len(diffs) == maxShadowShown {
				diffs = append(diffs, "…")
				break
			}
			diffs = append(diffs, d)
		}
		return ": " + strings.Join(diffs, "; ")
	}
	return ""
}

// describeChars names the characters of s for a message: 'Il' when
// they are plain ASCII (at most maxShadowChars of them), else the code
// point and name of each (at most maxShadowNamed); then "…" for the rest.
func describeChars(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r >= utf8.RuneSelf }) {
		if len(s) > maxShadowChars {
			return "'" + s[:maxShadowChars] + "' …"
		}
		return "'" + s + "'"
	}
	parts := make([]string, 0, maxShadowNamed+1)
	for k, r := range s {
		if len(parts) == maxShadowNamed {
			parts = append(parts, "…")
			break
		}
		if _, size := utf8.DecodeRuneInString(s[k:]); r == utf8.RuneError && size == 1 {
			parts = append(parts, fmt.Sprintf("the byte 0x%02X (not UTF-8)", s[k]))
			continue
		}
		parts = append(parts, describeRune(r))
	}
	return strings.Join(parts, ", ")
}

// describeRune is "U+0435 CYRILLIC SMALL LETTER IE" for a letter this
// rule knows, "U+FB01 (a form of 'fi')" for a compatibility character.
func describeRune(r rune) string {
	switch {
	case r >= ' ' && r < utf8.RuneSelf:
		return "'" + string(r) + "'"
	case runeNames[r] != "":
		return fmt.Sprintf("U+%04X %s", r, runeNames[r])
	case 0xFF21 <= r && r <= 0xFF3A:
		return fmt.Sprintf("U+%04X FULLWIDTH LATIN CAPITAL LETTER %c", r, 'A'+r-0xFF21)
	case 0xFF41 <= r && r <= 0xFF5A:
		return fmt.Sprintf("U+%04X FULLWIDTH LATIN SMALL LETTER %c", r, 'A'+r-0xFF41)
	}
	if c := norm.NFKC.String(string(r)); c != string(r) && !strings.ContainsFunc(c, func(c rune) bool { return c < ' ' || c >= utf8.RuneSelf }) {
		return fmt.Sprintf("U+%04X (a form of '%s')", r, c)
	}
	return fmt.Sprintf("U+%04X", r)
}
