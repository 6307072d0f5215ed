package leak

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxScan is how much of a text [Detector.Find] looks at: its first MiB. Leaks
// beyond it are not reported (Redact still covers the whole text).
const MaxScan = 1 << 20

// MinSecretLen is the length below which a secret value is ignored: shorter values
// would match ordinary text.
const MinSecretLen = 4

// excerptRunes is the longest excerpt, in characters.
const excerptRunes = 120

// redacted replaces every secret.
const redacted = Redacted

// Redacted is what [Detector.Redact] puts in place of a secret.
const Redacted = "***"

// A Match is one kind of leak found in a text.
type Match struct {
	Kind string // KindStackTrace, KindSourcePath, KindSecretToken or KindSecretValue
	// Detail names the shape: "Python traceback", "Node stack frame", "GitHub token",
	// "value of --env API_KEY". It never contains the secret.
	Detail string
	// Excerpt is the text around the first occurrence, at most 120 characters, on
	// one line, with every secret (given or token-shaped) replaced by "***".
	Excerpt string
	// Text is the matched text itself, for telling an echo of the input from a
	// leak. It may be a secret: never store or print it.
	Text string
}

// A Detector finds leaks in text and redacts secrets. It is safe for concurrent
// use.
type Detector struct {
	secrets []secret // sorted by name
	// raw, clean and both are the forms of the secrets as they are matched
	// (see [Detector.valueHits]).
	raw, clean, both []needle
	starry           bool // some variant contains '*', so redaction must be repeated
	quoted           bool // some variant contains '"', so JSON is redacted string by string
	maxVarLen        int
	// resemblances are the lower-cased transformed forms of the secrets
	// that [Detector.Resembles] looks for.
	resemblances []string
	// kept are the names that redaction by shape leaves alone (see
	// [Detector.Keeping]).
	kept []string
}

type secret struct {
	name     string
	variants []string
}

// NewDetector returns a detector for the given secrets, a map from a name that says
// where the secret came from (for example "--env API_KEY" or "--header
// Authorization") to its value. Values shorter than [MinSecretLen] are ignored. A
// value like "Bearer xyz" also makes its credential "xyz" a secret.
func NewDetector(secrets map[string]string) *Detector {
	d := &Detector{}
	names := make([]string, 0, len(secrets))
	for name := range secrets {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	for _, name := range names {
		vs := variants(secrets[name])
		if len(vs) == 0 {
			continue
		}
		d.secrets = append(d.secrets, secret{name: name, variants: vs})
		for _, v := range credentials(secrets[name]) {
			for _, r := range resemblances(v) {
				if !seen[r] {
					seen[r] = true
					d.resemblances = append(d.resemblances, r)
				}
			}
		}
		for _, v := range vs {
			d.starry = d.starry || strings.Contains(v, "*")
			d.quoted = d.quoted || strings.Contains(v, `"`)
			d.maxVarLen = max(d.maxVarLen, len(v))
		}
	}
	d.buildNeedles()
	return d
}

// variants returns the forms in which value may show up in a server's output: as
// is, JSON-escaped (once and twice, as Go, JavaScript and Python's ASCII-only
// encoders write it), URL-encoded (as a query and as a path), and
// percent-encoded with every byte escaped and with every byte but the
// unreserved characters of RFC 3986 escaped (upper-case hex; matching ignores
// the case of ASCII letters, so lower-case hex is covered too). For "Bearer
// xyz" and the like, the same for "xyz".
func variants(value string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= MinSecretLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, v := range credentials(value) { // each at least MinSecretLen long
		add(v)
		for _, once := range jsonForms(v) {
			add(once)
			for _, twice := range jsonForms(once) {
				add(twice)
			}
		}
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
		add(percentEncode(v, false))
		add(percentEncode(v, true))
	}
	return out
}

// percentEncode returns v with every byte written as %XX (upper-case hex),
// or, when reserved is set, every byte but the unreserved characters of RFC
// 3986 (ASCII letters, digits, '-', '.', '_' and '~').
func percentEncode(v string, reserved bool) string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	sb.Grow(3 * len(v))
	for i := 0; i < len(v); i++ {
		b := v[i]
		if reserved && ('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '.' || b == '_' || b == '~') {
			sb.WriteByte(b)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[b>>4])
		sb.WriteByte(hex[b&0xF])
	}
	return sb.String()
}

// credentials are value and, for "Bearer xyz" and the like, "xyz": the
// values of a secret, those at least [MinSecretLen] long.
func credentials(value string) []string {
	values := []string{value}
	if scheme, cred, ok := strings.Cut(value, " "); ok {
		switch strings.ToLower(scheme) {
		case "bearer", "basic", "token", "bot", "apikey":
			values = append(values, strings.TrimSpace(cred))
		}
	}
	return slices.DeleteFunc(values, func(v string) bool { return len(v) < MinSecretLen })
}

// resemblanceWindow is the length of the pieces of a secret that
// [Detector.Resembles] looks for.
const resemblanceWindow = 8

// resemblances are the lower-cased forms of secret value v that
// [Detector.Resembles] looks for: every piece of [resemblanceWindow]
// characters of v and of v reversed (v and its reversal whole when shorter), and v in
// base64 (standard and URL alphabets, padded and not).
func resemblances(v string) []string {
	var out []string
	add := func(s string) {
		if s = strings.ToLower(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	lower := []rune(strings.ToLower(v))
	reversed := slices.Clone(lower)
	slices.Reverse(reversed)
	for _, s := range [][]rune{lower, reversed} {
		if len(s) < resemblanceWindow {
			add(string(s))
			continue
		}
		for i := 0; i+resemblanceWindow <= len(s); i++ {
			add(string(s[i : i+resemblanceWindow]))
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		add(enc.EncodeToString([]byte(v)))
	}
	return out
}

// Resembles reports whether text carries a transformed form of a secret that
// [Detector.Redact] does not replace: a piece of [resemblanceWindow]
// characters of it (a prefix, an excerpt), in any letter case, or of its
// reversal, or its base64 encoding. It is for values mcp-fuzz would send
// back to the server (see the learning of valid calls), where a near miss
// costs nothing; it is not a leak check.
func (d *Detector) Resembles(text string) bool {
	if len(d.resemblances) == 0 {
		return false
	}
	lt := strings.ToLower(text)
	for _, r := range d.resemblances {
		if strings.Contains(lt, r) {
			return true
		}
	}
	return false
}

// jsonForms returns s as it appears inside a JSON string, without the quotes: with
// and without HTML escaping, with every non-ASCII character escaped, and each
// of those with "/" written as "\/" (PHP's encoder does so by default).
func jsonForms(s string) []string {
	var forms []string
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	for _, html := range []bool{true, false} {
		sb.Reset()
		enc.SetEscapeHTML(html)
		if enc.Encode(s) == nil {
			out := strings.TrimSuffix(sb.String(), "\n")
			forms = append(forms, out[1:len(out)-1])
		}
	}
	ascii := forms[len(forms)-1]
	sb.Reset()
	for _, r := range ascii {
		switch {
		case r < utf8.RuneSelf:
			sb.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&sb, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&sb, `\u%04x`, r)
		}
	}
	forms = append(forms, sb.String())
	if strings.Contains(s, "/") {
		for _, f := range forms[:len(forms):len(forms)] {
			forms = append(forms, strings.ReplaceAll(f, "/", `\/`))
		}
	}
	return forms
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// Redact returns text with every secret replaced by "***": each given secret value
// in all its forms (see [variants]), in any ASCII letter case and even split by
// invisible characters, and every secret-shaped string (see [RedactShapes]: AWS
// keys, GitHub tokens, private keys, the rest of [Detector.Find]'s secret_token
// shapes and long random strings, even split by invisible characters), because
// a report that quotes a leaked credential leaks it again. The whole text is
// redacted, however long.
func (d *Detector) Redact(text string) string {
	text = d.redactValues(text)
	text = replaceSpans(text, d.shapeSpans(text))
	if d.starry { // a token's "***" may have completed a secret with '*' in it
		text = d.redactValues(text)
	}
	return text
}

// redactValues replaces the given secrets (see [Detector.valueHits]),
// repeating when a replacement may have formed a new occurrence: a secret
// with '*' in it, or a text whose invisible characters were ignored. Every
// pass shortens the text, so this ends.
func (d *Detector) redactValues(text string) string {
	for {
		spans, invisibles := d.valueSpans(text)
		if len(spans) == 0 {
			return text
		}
		text = replaceSpans(text, spans)
		if !d.starry && !invisibles {
			return text
		}
	}
}

// Find reports the leaks in the first [MaxScan] bytes of text: at most one Match
// per Kind and Detail, for its first occurrence, ordered by where that is. A
// given secret is found as [Detector.Redact] finds it: in any of its forms and
// ASCII letter cases, even split by invisible characters.
func (d *Detector) Find(text string) []Match {
	scan := clip(text)
	type found struct {
		Match
		start, end int
	}
	var hits []found
	// Tokens are also looked for without invisible characters, which a
	// server can put inside one to break its shape.
	cleaned, at := clean(scan)
	for i := range patterns {
		p := &patterns[i]
		if start, end, ok := p.first(scan); ok {
			hits = append(hits, found{Match{Kind: p.kind, Detail: p.detail}, start, end})
		} else if p.kind == KindSecretToken && at != nil {
			if start, end, ok := p.first(cleaned); ok {
				hits = append(hits, found{Match{Kind: p.kind, Detail: p.detail}, at[start], at[end]})
			}
		}
	}
	// Secret values are looked for a little past the end, so that one straddling
	// the cut is still found.
	wide := text[:min(len(text), len(scan)+d.maxVarLen)]
	first := make([]span, len(d.secrets)) // of each secret, where end > 0
	d.valueHits(wide, false, func(n *needle, sp span) {
		if sp.start >= len(scan) {
			return
		}
		for _, i := range n.secrets {
			if f := first[i]; f.end == 0 || sp.start < f.start || sp.start == f.start && sp.end > f.end {
				first[i] = sp
			}
		}
	})
	for i, s := range d.secrets {
		if first[i].end > 0 {
			hits = append(hits, found{Match{Kind: KindSecretValue, Detail: "value of " + s.name}, first[i].start, first[i].end})
		}
	}
	if len(hits) == 0 {
		return nil
	}
	slices.SortStableFunc(hits, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Detail, b.Detail))
	})
	spans := d.sensitive(wide)
	seen := map[string]bool{}
	var out []Match
	for _, h := range hits {
		key := h.Kind + "\x00" + h.Detail
		if seen[key] {
			continue
		}
		seen[key] = true
		h.Excerpt = d.excerpt(wide, spans, h.start, h.end)
		h.Text = wide[h.start:h.end]
		out = append(out, h.Match)
	}
	return out
}

// clip returns the part of text that Find scans: all of it up to MaxScan bytes,
// else the first MaxScan bytes, cut at a space when there is one near the end (so
// that no token is cut in two) and never inside a UTF-8 sequence.
func clip(text string) string {
	if len(text) <= MaxScan {
		return text
	}
	cut := MaxScan
	if i := strings.LastIndexAny(text[MaxScan-4096:MaxScan], " \t\r\n"); i >= 0 {
		cut = MaxScan - 4096 + i
	}
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}

type span struct{ start, end int }

// sensitive returns the spans of text that must never be shown: the given secrets
// and secret-shaped strings, sorted and merged.
func (d *Detector) sensitive(text string) []span {
	spans, _ := d.valueSpans(text)
	return mergeSpans(append(spans, d.shapeSpans(text)...))
}

// excerpt returns at most excerptRunes characters of text around [start, end), with
// the sensitive spans replaced by "***" and runs of white space and control
// characters shown as one space.
func (d *Detector) excerpt(text string, spans []span, start, end int) string {
	const around = 4 * excerptRunes // bytes of context to consider on each side
	a, b := max(0, start-around), min(len(text), end+around)
	for a > 0 && !utf8.RuneStart(text[a]) {
		a++
	}
	for b < len(text) && !utf8.RuneStart(text[b]) {
		b--
	}
	// the first span that ends after a
	k := sort.Search(len(spans), func(i int) bool { return spans[i].end > a })

	var out []rune
	mark := -1 // index in out where the match starts
	space := false
	put := func(r rune) {
		if r == ' ' {
			if space || len(out) == 0 {
				return
			}
			space = true
		} else {
			space = false
		}
		out = append(out, r)
	}
	for i := a; i < b; {
		if mark < 0 && i >= start {
			mark = len(out)
		}
		if k < len(spans) && spans[k].start <= i {
			for _, r := range redacted {
				put(r)
			}
			i = spans[k].end
			k++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			r = ' '
		}
		put(r)
		i += size
	}
	if mark < 0 {
		mark = len(out)
	}
	// Show a quarter of the excerpt before the match, the rest from it on.
	from := max(0, mark-excerptRunes/4)
	to := min(len(out), from+excerptRunes)
	from = max(0, to-excerptRunes)
	shown := slices.Clone(out[from:to])
	if from > 0 {
		shown[0] = '…'
	}
	if to < len(out) {
		shown[len(shown)-1] = '…'
	}
	// Cutting and the ellipses cannot complete a token, but could complete a given
	// secret that contains them: redact once more.
	return strings.TrimSpace(d.redactValues(string(shown)))
}
