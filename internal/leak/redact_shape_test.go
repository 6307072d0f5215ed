package leak

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// More test tokens, assembled at run time (see leak_test.go).
var (
	ghOAuth   = "gho" + "_" + strings.Repeat("Zx9Y", 9)
	ghServer  = "ghs" + "_" + strings.Repeat("Qw3E", 9)
	stsKey    = "ASIA" + "Y34FZKBOKMUTVV7A"
	stripe    = "sk" + "_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	stripeRK  = "rk" + "_live_" + "51H8s2kL0pQwErTyUiOpAsDf"
	npmToken  = "npm" + "_" + strings.Repeat("aB3d", 9)
	slackUser = "xox" + "p-1234567890-0987654321-AbCdEf123456"
	// random is a long random string of no known service.
	random = "Xk9" + "vQ2mLp7RtZ4wNc8bHj3Yd6Fs1Ga5Ue0K"
)

func TestRedactShapesTokens(t *testing.T) {
	t.Parallel()
	zw := func(tok string, at int, ch string) string { return tok[:at] + ch + tok[at:] }
	for _, tc := range []struct {
		name, text string
		secret     string // what must not survive
	}{
		{"github classic", "token: " + ghToken, ghToken},
		{"github oauth", "x " + ghOAuth + " y", ghOAuth},
		{"github server", `{"t":"` + ghServer + `"}`, ghServer},
		{"github pat", "pat=" + ghPAT, ghPAT},
		{"aws", "key " + awsKey, awsKey},
		{"aws sts", "key " + stsKey, stsKey},
		{"slack bot", slack, slack},
		{"slack user", "(" + slackUser + ")", slackUser},
		{"jwt", "Authorization: Bearer " + jwt, jwt},
		{"private key", "here:\n" + privKey + "\nthere", "MIIEowIBAAKCAQEA7bq"},
		{"private key JSON", `{"k":"` + strings.ReplaceAll(privKey, "\n", `\n`) + `"}`, "MIIEowIBAAKCAQEA7bq"},
		{"google", "key=" + googleKey, googleKey},
		{"stripe", stripe + ".", stripe},
		{"stripe restricted", rk(stripeRK), stripeRK},
		{"npm", "//registry.npmjs.org/:_authToken=" + npmToken, npmToken},
		{"high entropy", "secret is " + random + " ok", random},
		{"high entropy base64", "k: " + base64.StdEncoding.EncodeToString([]byte{0x9f, 0x12, 0xee, 0x01, 0x7a, 0xc3, 0x55, 0xd0, 0x3b, 0x81, 0x4c, 0xfe, 0x26, 0x90, 0x0d, 0xb7, 0x68, 0x1f, 0xa2, 0x5e, 0xc9, 0x33, 0x07, 0x8d, 0xf4, 0x4a, 0xbb, 0x12, 0x6c}), ""},
		{"zero-width in github", "t=" + zw(ghToken, 2, "\u200b"), ghToken[2:]},
		{"soft hyphen in aws", zw(awsKey, 4, "\u00ad"), awsKey[4:]},
		{"bidi in slack", zw(slack, 3, "\u202e"), slack[3:]},
		{"word joiner in jwt", zw(jwt, 10, "\u2060"), jwt[10:]},
		{"bom in npm", zw(npmToken, 5, "\ufeff"), npmToken[5:]},
		{"tag character in stripe", zw(stripe, 8, "\U000E0041"), stripe[8:]},
		{"several invisibles", "g\u200bh\u200cp\u200d_" + ghToken[4:], ghToken[4:]},
		{"JSON-escaped zero-width", `{"t":"gh\u200bp_` + ghToken[4:] + `"}`, ghToken[4:]},
		{"JSON-escaped upper hex", `{"t":"gh\u200Bp_` + ghToken[4:] + `"}`, ghToken[4:]},
		{"JSON-escaped twice", `{"t":"gh\\u200bp_` + ghToken[4:] + `"}`, ghToken[4:]},
		{"JSON-escaped tag pair", `"AK\udb40\udc41IA` + awsKey[4:] + `"`, awsKey[4:]},
		{"after a JSON newline", `"line\n` + ghToken + `"`, ghToken},
		{"entropy after a JSON newline", `"line\n` + random + `"`, random[1:]},
		{"token with a tail", googleKey + "XYZ" + ghToken, ghToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := RedactShapes(tc.text)
			if !strings.Contains(out, Redacted) {
				t.Fatalf("RedactShapes(%q) = %q: nothing redacted", tc.text, out)
			}
			if tc.secret != "" && strings.Contains(out, tc.secret) {
				t.Fatalf("RedactShapes(%q) = %q still holds %q", tc.text, out, tc.secret)
			}
			if again := RedactShapes(out); again != out {
				t.Fatalf("not idempotent: %q -> %q", out, again)
			}
		})
	}
}

func rk(s string) string { return "restricted key: " + s }

// TestRedactShapesLeavesHealthyText is the other half: healthy output that
// looks technical is not redacted.
func TestRedactShapesLeavesHealthyText(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"SHA256=E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
		"commit da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"sha512: cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
		`{"id":"550e8400-e29b-41d4-a716-446655440000","other":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"}`,
		base64.StdEncoding.EncodeToString([]byte("The quick brown fox jumps over the lazy dog, 123 times.")),
		base64.URLEncoding.EncodeToString([]byte("hello world, this is a config file\nwith two lines")),
		"/home/runner/work/MyProject2/src/Components/Button4.tsx",
		"home/runner/work/MyProject2/src/Components9/deeply/nested",
		"https://github.com/mcp-fuzz/mcp-fuzz/blob/main/internal/leak/patterns.go#L12",
		"https://example.com/api/v2/items?page=3&sort=createdAt&filter=ActiveUsers2024",
		"NO_PROXY=127.0.0.1,localhost,::1,169.254.169.254,metadata.google.internal",
		"AbstractSingletonProxyFactoryBean2Impl getUserAccountInformationByIdentifier2",
		"test_case_number_42_with_SomeUpperCase and ThisIsAVeryLongCamelCaseIdentifierV2",
		`"integrity": "sha512-cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d1Aa=="`,
		"integrity sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
		"12345678901234567890123456789012345678901234567890",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaAAA111",
		"The answer is 42; see RFC 9110, section 15.5.1, and ISO-8601 dates like 2026-12-02T03:04:05Z.",
		"ghp_short AKIA123 sk_live_x npm_abc",
		"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
		"zero\u200bwidth between words stays as it is",
	} {
		if out := RedactShapes(text); out != text {
			t.Errorf("RedactShapes(%q) = %q, want it unchanged", text, out)
		}
	}
}

// TestRedactShapesKeepsInvisiblesOutside checks that only the matched span
// changes: invisible characters elsewhere stay.
func TestRedactShapesKeepsInvisiblesOutside(t *testing.T) {
	t.Parallel()
	text := "a\u200bb " + ghToken[:2] + "\u200b" + ghToken[2:] + " c\u200bd"
	want := "a\u200bb *** c\u200bd"
	if got := RedactShapes(text); got != want {
		t.Fatalf("RedactShapes = %q, want %q", got, want)
	}
}

func TestRedactShapesDoesNotHideFindings(t *testing.T) {
	t.Parallel()
	d := NewDetector(nil)
	found := false
	for _, m := range d.Find("result: " + ghToken) {
		if m.Kind == KindSecretToken {
			found = true
			if strings.Contains(m.Excerpt, ghToken) {
				t.Fatalf("excerpt %q shows the token", m.Excerpt)
			}
		}
	}
	if !found {
		t.Fatal("a token in a result is no longer found")
	}
	// Long random strings are redacted, never flagged: the rule is for
	// hiding, not for accusing.
	for _, m := range d.Find("result: " + random) {
		t.Fatalf("a random string was flagged: %+v", m)
	}
	if m := d.Find("x " + random + " " + ghToken); len(m) != 1 || strings.Contains(m[0].Excerpt, random) {
		t.Fatalf("Find = %+v: want one match whose excerpt hides the random string", m)
	}
}

func TestKeeping(t *testing.T) {
	t.Parallel()
	name := "lookup_" + random
	d := NewDetector(map[string]string{"--env K": "hunter22"}).Keeping([]string{name, "plain_name"})
	got := d.Redact("call " + name + " with hunter22 and " + ghToken)
	if want := "call " + name + " with *** and ***"; got != want {
		t.Fatalf("Redact = %q, want %q", got, want)
	}
	if got := d.Redact(random); got != Redacted {
		t.Fatalf("a random string outside the name: %q", got)
	}
}

func TestRedactReport(t *testing.T) {
	t.Parallel()
	d := NewDetector(map[string]string{"--env K": "hunter22"})
	for _, raw := range []string{
		`{"a":"` + ghToken + `","b":["hunter22",1.50,null],"` + awsKey + `":true}`,
		`{"k":"-----BEGIN ` + `PRIVATE KEY-----\nabc","next":"value"}`,
		`"gh\u200bp_` + ghToken[4:] + `"`,
		`{"enum":["` + random + `","plain"]}`,
	} {
		out := d.RedactReport(json.RawMessage(raw))
		if !json.Valid(out) {
			t.Fatalf("RedactReport(%s) = %s: invalid JSON", raw, out)
		}
		for _, s := range []string{ghToken[4:], awsKey, "hunter22", "abc", random} {
			if strings.Contains(string(out), s) {
				t.Fatalf("RedactReport(%s) = %s still holds %q", raw, out, s)
			}
		}
		if !strings.Contains(string(out), "1.50") && strings.Contains(raw, "1.50") {
			t.Fatalf("RedactReport(%s) = %s changed a number", raw, out)
		}
	}
	clean := json.RawMessage(`{"sha":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","n":1}`)
	if out := d.RedactReport(clean); string(out) != string(clean) {
		t.Fatalf("RedactReport changed healthy JSON: %s", out)
	}
}

// adversarialShapes are units that, repeated to a MiB, would make a
// redactor that rescans from every candidate quadratic: candidate prefixes
// everywhere, invisible characters, backslashes, one long run.
var adversarialShapes = map[string]string{
	"prefixes":    "ghp_ AKIA xoxb- eyJ.eyJ. AIza sk_live_ npm_ -----BEGIN ",
	"invisibles":  "g\u200bh\u00adp_\u202e",
	"backslashes": `\\\\\\\\\\u200`,
	"one run":     "aB3",
	"tokens":      ghToken + " ",
}

// TestRedactShapesAdversarial checks that a MiB of adversarial text comes
// out as valid UTF-8 (BenchmarkRedactShapesAdversarial measures its cost).
func TestRedactShapesAdversarial(t *testing.T) {
	t.Parallel()
	for name, unit := range adversarialShapes {
		out := RedactShapes(strings.Repeat(unit, (1<<20)/len(unit)))
		if !utf8.ValidString(out) {
			t.Errorf("%s: output is not valid UTF-8", name)
		}
	}
}

// BenchmarkRedactShapesAdversarial reports the time for a MiB of each
// adversarial shape; a linear redactor takes about what a MiB of ordinary
// text takes (BenchmarkRedactShapes).
func BenchmarkRedactShapesAdversarial(b *testing.B) {
	for name, unit := range adversarialShapes {
		text := strings.Repeat(unit, (1<<20)/len(unit))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				RedactShapes(text)
			}
		})
	}
}

func BenchmarkRedactShapes(b *testing.B) {
	text := strings.Repeat("ordinary output with a sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 and words\n", 10000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		RedactShapes(text)
	}
}

// FuzzRedactShapes checks that redaction by shape never panics, is
// idempotent, keeps valid UTF-8 valid, and that RedactReport keeps valid
// JSON valid.
func FuzzRedactShapes(f *testing.F) {
	f.Add("token " + ghToken + " and " + random)
	f.Add("gh\u200bp_" + ghToken[4:] + "\U000E0041")
	f.Add(`{"a":"gh\u200bp_` + ghToken[4:] + `\n` + random + `"}`)
	f.Add(privKey[:40])
	f.Add(googleKey + "AIza" + strings.Repeat("x", 35) + ghToken)
	f.Add(`\\\\u200b\udb40\udc41` + awsKey)
	f.Add("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
	d := NewDetector(map[string]string{"--env A": "hunter22"}).Keeping([]string{"tool_" + random})
	f.Fuzz(func(t *testing.T, text string) {
		out := RedactShapes(text)
		if again := RedactShapes(out); again != out {
			t.Fatalf("RedactShapes is not idempotent: %q -> %q -> %q", text, out, again)
		}
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("RedactShapes(%q) = %q: invalid UTF-8", text, out)
		}
		red := d.Redact(text)
		if again := d.Redact(red); again != red {
			t.Fatalf("Redact is not idempotent: %q -> %q -> %q", text, red, again)
		}
		if json.Valid([]byte(text)) && !json.Valid(d.RedactReport(json.RawMessage(text))) {
			t.Fatalf("RedactReport(%q) is not valid JSON", text)
		}
	})
}

// TestFindSplitToken checks that a token split by invisible characters is
// still a leak, and that its excerpt hides it.
func TestFindSplitToken(t *testing.T) {
	t.Parallel()
	d := NewDetector(nil)
	for _, text := range []string{
		"result: gh\u200bp_" + ghToken[4:],
		`{"text":"AK\u200bIA` + awsKey[4:] + `"}`,
	} {
		m := d.Find(text)
		if len(m) != 1 || m[0].Kind != KindSecretToken {
			t.Fatalf("Find(%q) = %+v, want one secret_token", text, m)
		}
		if strings.Contains(m[0].Excerpt, ghToken[4:]) || strings.Contains(m[0].Excerpt, awsKey[4:]) {
			t.Fatalf("excerpt %q shows the token", m[0].Excerpt)
		}
	}
}
