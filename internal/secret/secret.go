package secret

import (
	"math"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// MinLen is the length under which a value is never a secret: shorter values
// match ordinary text ("true", "1", "dev"), so treating them as secrets would
// flag false leaks and mask harmless log output.
const MinLen = 8

// An Entry is one secret: where it came from (for example "--env API_TOKEN",
// "--header X-Api-Key", "--bearer") and its value.
type Entry struct {
	Source string
	Value  string
}

// Inputs are the values given to mcp-fuzz that may carry secrets.
type Inputs struct {
	Bearer  string
	Headers []string // "Name: value"
	URL     string
	Env     []string // "NAME=VALUE" given to the server
	// PassEnv names variables copied from the caller's environment.
	PassEnv []string
	// Named are variable names the user declared secret (--secret, secrets:):
	// looked up in Env, then PassEnv, then the caller's environment.
	Named []string
	// LookupEnv reads the caller's environment; nil means an empty one.
	LookupEnv func(string) (string, bool)
}

// Collect returns the secrets among in, sorted by source, each value once
// (the first source wins). A value is a secret when its source always carries
// credentials (the bearer, a credential-bearing header, URL userinfo) or when
// [SecretName] or [LooksLikeCredential] says so — and in every case only when
// [Eligible] allows it. A variable named in in.Named is a secret whatever its
// name and shape, if it is at least 4 characters long.
func Collect(in Inputs) []Entry {
	lookup := in.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	var out []Entry
	seen := map[string]bool{}
	add := func(source, value string) {
		if value == "" || seen[value] {
			return
		}
		seen[value] = true
		out = append(out, Entry{Source: source, Value: value})
	}
	envValues := map[string]string{}
	for _, kv := range in.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			envValues[k] = v
		}
	}
	for _, name := range in.PassEnv {
		if v, ok := lookup(name); ok {
			if _, given := envValues[name]; !given {
				envValues[name] = v
			}
		}
	}
	named := map[string]bool{}
	for _, name := range in.Named {
		named[name] = true
		v, ok := envValues[name]
		if !ok {
			v, _ = lookup(name)
		}
		if len(v) >= 4 {
			add("secret "+name, v)
		}
	}

	if in.Bearer != "" && Eligible(in.Bearer) {
		add("--bearer", in.Bearer)
	}
	for _, h := range in.Headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || plainHeaders[strings.ToLower(name)] && !SecretName(name) {
			continue
		}
		if Eligible(value) {
			add("--header "+name, value)
		}
		// "Bearer xyz": the credential alone shows up too.
		if scheme, cred, ok := strings.Cut(value, " "); ok && authSchemes[strings.ToLower(scheme)] && Eligible(strings.TrimSpace(cred)) {
			add("--header "+name+" credential", strings.TrimSpace(cred))
		}
	}
	for _, e := range URLSecrets(in.URL) {
		add(e.Source, e.Value)
	}
	names := make([]string, 0, len(envValues))
	for k := range envValues {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := envValues[k]
		if named[k] || !Eligible(v) {
			continue
		}
		if SecretName(k) || LooksLikeCredential(v) {
			add("--env "+k, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}

// OwnSource is how [Collect]'s callers name a secret of [Own] when it
// has no other source: "mcp-fuzz's own GITHUB_TOKEN".
func OwnSource(name string) string { return "mcp-fuzz's own " + name }

// Own returns the secrets in mcp-fuzz's own environment, environ as
// os.Environ gives it, by variable name: the values of variables whose name
// is secret-bearing ([SecretName]: GITHUB_TOKEN, GH_TOKEN,
// ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN, any *_TOKEN, ...),
// when [Eligible] allows them. Of the Action's inputs (INPUT_*) only the
// github-token is: the others are settings, whose secrets [Collect] finds
// in what they say (INPUT_SECRETS holds names, not a secret). The server
// is never given these values unless the user passes them on; they are
// redacted from what it sends all the same, since it can only have read
// them where it should not.
func Own(environ []string) map[string]string {
	out := map[string]string{}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || seen[name] {
			continue // the first entry of a name is the one getenv returns
		}
		seen[name] = true
		up := strings.ToUpper(name)
		if strings.HasPrefix(up, "INPUT_") && up != "INPUT_GITHUB-TOKEN" && up != "INPUT_GITHUB_TOKEN" {
			continue
		}
		if ownSecretName(name) && Eligible(value) {
			out[name] = value
		}
	}
	return out
}

// ownWords are the words of a name in mcp-fuzz's own environment that say
// its value is a credential. The environment mcp-fuzz inherits is large and
// nobody chose it for mcp-fuzz, so a secret word must be a whole word of
// the name (TOX_TESTENV_PASSENV lists variable names, XDG_SESSION_ID is a
// number's name): stricter than [SecretName], which judges the names a
// user gives mcp-fuzz.
var ownWords = map[string]bool{
	"TOKEN": true, "KEY": true, "APIKEY": true, "SECRET": true, "SECRETS": true,
	"PASS": true, "PASSWORD": true, "PASSWD": true, "PASSPHRASE": true, "PWD": true,
	"AUTH": true, "CRED": true, "CREDS": true, "CREDENTIAL": true, "CREDENTIALS": true,
	"COOKIE": true, "PRIVATE": true, "BEARER": true, "DSN": true,
}

// ownSecretName reports whether a variable of mcp-fuzz's own environment
// names a credential: [SecretName] says so and one of the words of the
// name, split at '_' and '-', is a secret word (GITHUB_TOKEN, NPM_TOKEN,
// AWS_SECRET_ACCESS_KEY, INPUT_GITHUB-TOKEN; not TOX_TESTENV_PASSENV).
func ownSecretName(name string) bool {
	if !SecretName(name) || strings.ToUpper(name) == "PWD" || strings.ToUpper(name) == "OLDPWD" {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' }) {
		if ownWords[w] {
			return true
		}
	}
	return false
}

// Values returns the values of entries.
func Values(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Value
	}
	return out
}

// URLSecrets returns the credentials in a target URL: the userinfo password
// (and user name, when it looks like a token) and the values of query
// parameters whose name says they carry a credential or whose value looks like
// one.
func URLSecrets(raw string) []Entry {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []Entry
	if u.User != nil {
		if p, ok := u.User.Password(); ok && len(p) >= 4 {
			out = append(out, Entry{"--url password", p})
		}
		if n := u.User.Username(); len(n) >= 4 && (LooksLikeCredential(n) || !hasPassword(u)) {
			out = append(out, Entry{"--url user", n}) // a token used as the user name
		}
	}
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range q[k] {
			if Eligible(v) && (SecretName(k) || LooksLikeCredential(v)) {
				out = append(out, Entry{"--url query " + k, v})
			}
		}
	}
	return out
}

func hasPassword(u *url.URL) bool {
	_, ok := u.User.Password()
	return ok
}

// secretWords are the parts of a variable or header name that say its value
// is a credential.
var secretWords = []string{
	"TOKEN", "KEY", "SECRET", "PASS", "PWD", "AUTH", "CRED", "COOKIE", "SESSION",
	"PRIVATE", "SIGN", "DSN", "CERT", "SALT", "BEARER", "APIKEY",
}

// notSecretNames are names that contain a secret word but never carry one.
var notSecretNames = map[string]bool{
	"KEYBOARD": true, "PASSWD_FILE": true, "SSH_AUTH_SOCK": true,
	"DBUS_SESSION_BUS_ADDRESS": true, "SESSION_MANAGER": true,
}

// SecretName reports whether a variable, header or parameter name says its
// value is a credential: it contains TOKEN, KEY, SECRET, PASS, PWD, AUTH,
// CRED, COOKIE, SESSION, PRIVATE, SIGN, DSN, … (case-insensitively).
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	if notSecretNames[up] || strings.HasSuffix(up, "_FILE") || strings.HasSuffix(up, "_PATH") || strings.HasSuffix(up, "_DIR") {
		return false
	}
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// Eligible reports whether a value can be a secret at all: not a boolean, a
// number, a value under [MinLen] characters, a plain path or a URL without
// credentials. Masking such values would hide ordinary text and flag false
// leaks.
func Eligible(v string) bool {
	v = strings.TrimSpace(v)
	if len(v) < MinLen {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "null", "none", "disabled", "enabled":
		return false
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	if plainPath(v) || plainURL(v) || hostList(v) {
		return false
	}
	return true
}

// hostList reports whether v is configuration naming hosts rather than a
// credential: a host, or a comma-separated list of them (NO_PROXY,
// ALLOWED_HOSTS), each an IP address or CIDR block, localhost, "*", a
// dotted host name, a ".domain" or "*.domain" suffix (with an optional port) whose
// top-level label is letters, or a URL without credentials; no label may
// look like a credential.
func hostList(v string) bool {
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" || item == "*" || strings.EqualFold(item, "localhost") || plainURL(item) {
			continue
		}
		if _, _, err := net.ParseCIDR(item); err == nil {
			continue
		}
		host := item
		if h, port, err := net.SplitHostPort(item); err == nil {
			if _, err := strconv.Atoi(port); err != nil {
				return false
			}
			host = h
		}
		if net.ParseIP(host) != nil || strings.EqualFold(host, "localhost") {
			continue
		}
		if !hostName(strings.TrimPrefix(strings.TrimPrefix(host, "*"), ".")) {
			return false
		}
	}
	return true
}

// hostName reports whether s is a dotted DNS name whose labels are letters,
// digits and hyphens (at most 63 each, none shaped like a credential) and
// whose last label is letters only.
func hostName(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for i, l := range labels {
		if l == "" || len(l) > 63 || LooksLikeCredential(l) {
			return false
		}
		for _, r := range l {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if !letter && (i == len(labels)-1 || !(r >= '0' && r <= '9' || r == '-')) {
				return false
			}
		}
	}
	return true
}

// plainPath reports whether v is a file system path (or a PATH-like list of
// them) with no credential-looking part.
func plainPath(v string) bool {
	if strings.ContainsAny(v, " \t\n@?=") {
		return false
	}
	var parts []string
	switch {
	case strings.Contains(v, ";") || isWindowsPath(v):
		parts = strings.Split(v, ";") // a Windows path or PATH list
	default:
		parts = strings.Split(v, ":")
	}
	for _, p := range parts {
		if p == "" {
			continue
		}
		if !(strings.HasPrefix(p, "/") || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "~/") || isWindowsPath(p)) {
			return false
		}
		for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
			if LooksLikeCredential(part) {
				return false
			}
		}
	}
	return true
}

func isWindowsPath(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// plainURL reports whether v is a URL without userinfo and without a
// credential in its query.
func plainURL(v string) bool {
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.ContainsAny(v, " \t\n") {
		return false
	}
	return u.User == nil && len(URLSecrets(v)) == 0
}

// tokenPrefixes are how well-known credentials begin.
var tokenPrefixes = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-",
	"xoxs-", "xapp-", "sk-", "sk_live_", "sk_test_", "rk_live_", "pk_live_", "AKIA", "ASIA",
	"AIza", "npm_", "pypi-", "eyJ", "hf_", "SG.", "shpat_", "dop_v1_", "-----BEGIN",
}

// LooksLikeCredential reports whether v has the shape of a credential: a
// well-known token prefix, or at least 16 characters of high entropy mixing
// letters and digits with no spaces.
func LooksLikeCredential(v string) bool {
	if len(v) < MinLen {
		return false
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+8 {
			return true
		}
	}
	if len(v) < 16 || strings.ContainsAny(v, " \t\n") {
		return false
	}
	var letters, digits int
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters++
		}
	}
	return letters > 0 && digits > 0 && entropy(v) >= 3.5
}

// entropy is the Shannon entropy of v in bits per character.
func entropy(v string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range v {
		counts[r]++
		n++
	}
	var h float64
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}

// plainHeaders are standard headers that never carry a credential.
var plainHeaders = map[string]bool{
	"accept": true, "accept-language": true, "accept-encoding": true, "content-type": true,
	"user-agent": true, "cache-control": true, "mcp-protocol-version": true, "origin": true,
	"referer": true, "x-request-id": true, "x-forwarded-for": true,
}

// authSchemes are the HTTP authentication schemes whose credential follows a
// space ("Bearer xyz").
var authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "bot": true, "apikey": true}
