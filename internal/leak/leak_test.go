package leak

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Test tokens are assembled at run time so that no scanner mistakes this file for
// one that holds real credentials.
var (
	awsKey    = "AKIA" + "IOSFODNN7EXAMPLE"
	ghToken   = "ghp" + "_" + strings.Repeat("a1B2", 9)
	ghPAT     = "github" + "_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345678"
	slack     = "xox" + "b-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	jwt       = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	privKey   = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----"
	googleKey = "AIza" + "SyA-1234567890abcdefghijklmnopqrstu"
)

func TestFind(t *testing.T) {
	type want struct{ kind, detail string }
	st := func(d string) want { return want{KindStackTrace, d} }
	path := want{KindSourcePath, "absolute source path"}
	tok := func(d string) want { return want{KindSecretToken, d} }
	for _, tc := range []struct {
		name string
		text string
		want []want // in order
	}{
		// Python
		{"python traceback", "Traceback (most recent call last):\n  File \"/app/server.py\", line 3, in <module>\n    main()\nValueError: x",
			[]want{st("Python traceback"), path}},
		{"python frame alone", `  File "/x.py", line 3, in handler`, []want{st("Python traceback"), path}},
		{"python frame frozen", `File "<frozen importlib._bootstrap>", line 1007`, []want{st("Python traceback")}},
		{"python frame in JSON", `{"error":"Traceback (most recent call last):\n  File \"/srv/app/tools.py\", line 88, in call"}`, []want{st("Python traceback"), path}},
		{"python windows frame", `File "C:\app\main.py", line 12, in run`, []want{st("Python traceback"), path}},

		// Go
		{"go panic", "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/home/u/app/main.go:12 +0x1d\nexit status 2",
			[]want{st("Go panic"), path}},
		{"go goroutine dump", "goroutine 42 [chan receive, 3 minutes]:", []want{st("Go panic")}},
		{"go frame", "\tgithub.com/x/y.(*S).Call(...)\n\tcmd/main.go:12 +0x2a", []want{st("Go panic")}},
		{"go panic in JSON", `{"message":"tool failed\npanic: nil map"}`, []want{st("Go panic")}},

		// Node
		{"node frame", "Error: boom\n    at fn (/app/x.js:1:2)", []want{st("Node stack frame"), path}},
		{"node bare frame", "Error: boom\n    at /app/x.js:10:5", []want{st("Node stack frame"), path}},
		{"node anonymous", "    at Object.<anonymous> (file:///app/x.mjs:3:9)", []want{st("Node stack frame"), path}},
		{"node async new", "    at async new Server (/srv/index.ts:40:11)", []want{st("Node stack frame"), path}},
		{"node internal", "    at Module._compile (node:internal/modules/cjs/loader:1256:14)", []want{st("Node stack frame")}},
		{"node internal only", "(node:internal/process/task_queues:95:5)", []want{st("Node stack frame")}},
		{"node relative frame", "Error: x\n    at handler (dist/index.js:12:7)", []want{st("Node stack frame")}},
		{"node frame in JSON", `{"stack":"TypeError: x\n    at get (/app/lib/a.js:7:15)"}`, []want{st("Node stack frame"), path}},

		// Java, .NET
		{"java frame", "java.lang.NullPointerException\n\tat com.example.X.method(X.java:42)", []want{st("Java stack frame")}},
		{"java module frame", "\tat java.base/java.lang.Thread.run(Thread.java:833)", []want{st("Java stack frame")}},
		{"java native", "\tat sun.misc.Unsafe.park(Native Method)", []want{st("Java stack frame")}},
		{"kotlin frame", "    at io.ktor.server.Handler.invoke(Handler.kt:17)", []want{st("Java stack frame")}},
		{"dotnet frame", `   at Server.Tools.Run(String name) in C:\src\Tools.cs:line 12`, []want{st(".NET stack frame"), path}},

		// Rust, PHP
		{"rust panic", "thread 'main' panicked at src/main.rs:1:2:\nattempt to divide by zero", []want{st("Rust panic")}},
		{"rust old panic", "thread 'tokio-runtime-worker' panicked at 'oops', src/tools.rs:88:14", []want{st("Rust panic")}},
		{"php frame", "#0 /var/www/html/tools.php(12): run()\n#1 {main}", []want{st("PHP stack frame"), path}},

		// Source paths
		{"unix path", "error in /home/u/app/server.py:42", []want{path}},
		{"unix path col", "at line /srv/app/index.ts:42:7 something", []want{path}},
		{"quoted path", `{"file":"/opt/app/src/handler.rb:17"}`, []want{path}},
		{"windows path line", `failed: C:\src\x.cs:line 12`, []want{path}},
		{"windows escaped path", `"C:\\src\\x.cs:line 12"`, []want{path}},
		{"windows path forward", `see C:/work/app/main.go:9`, []want{path}},
		{"windows path parens", `D:\build\Program.cs(12,5): error CS1002`, []want{path}},
		{"php on line", "Fatal error: Uncaught Error in /var/www/x.php on line 12", []want{path}},
		{"file url", "loaded file:///app/lib/x.mjs:3:9", []want{path}},

		// Tokens
		{"aws", "key=" + awsKey, []want{tok("AWS access key ID")}},
		{"aws temp", "ASIA" + "XYZXYZXYZXYZXYZX", []want{tok("AWS access key ID")}},
		{"github", "token " + ghToken + " ok", []want{tok("GitHub token")}},
		{"github pat", ghPAT, []want{tok("GitHub token")}},
		{"slack", "Authorization: " + slack, []want{tok("Slack token")}},
		{"jwt", "Bearer " + jwt, []want{tok("JWT")}},
		{"private key", "here:\n" + privKey, []want{tok("private key")}},
		{"private key no end", "-----BEGIN " + "PRIVATE KEY-----\nMIIEvQIBADANBg", []want{tok("private key")}},
		{"openssh key", "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", []want{tok("private key")}},
		{"google", "k=" + googleKey, []want{tok("Google API key")}},
		{"stripe", "sk_" + "live_" + "abcdefghijklmnopqrstuvwx", []want{tok("Stripe secret key")}},
		{"anthropic", "sk-" + "ant-api03-" + "abcdefghijklmnopqrstuvwxyz012345", []want{tok("Anthropic API key")}},
		{"openai", "sk-" + "proj-" + "abcdefghijklmnopqrstuvwxyz012345", []want{tok("OpenAI API key")}},
		{"npm", "npm" + "_" + strings.Repeat("Ab3", 12), []want{tok("npm token")}},

		// Several at once: one per kind and detail, in order of appearance.
		{"many", "key " + awsKey + "\nTraceback (most recent call last):\n  File \"/a/b.py\", line 1\nother " + awsKey,
			[]want{tok("AWS access key ID"), st("Python traceback"), path}},

		// Ordinary text that must not count.
		{"url with colon", "see https://example.com/a:1 and http://localhost:3000/app.js:10:5", nil},
		{"url with source ext", "https://example.com/a.py:1", nil},
		{"at least", "expected at least 3 items, at most 10", nil},
		{"zod message", "Invalid arguments: expected string, received number at path /limit", nil},
		{"zod message 2", `[{"code":"invalid_type","expected":"string","received":"number","path":["limit"],"message":"Expected string, received number"}]`, nil},
		{"path without line", "ENOENT: no such file or directory, open '/data/x.json'", nil},
		{"non-source path with line", "config error at /etc/app/config.yaml:12", nil},
		{"json not js", "/data/report.json:3", nil},
		{"time", "started at 12:30:45 on 2024-01-01T10:00:00Z", nil},
		{"ratio", "ratio 3/4:5 and a/b.py:3", nil},
		{"relative path", "see src/server.ts:12 for details", nil},
		{"panic in prose", "Don't panic: everything is fine", nil},
		{"panic word", "panicked at the thought", nil},
		{"goroutine word", "a goroutine is a lightweight thread", nil},
		{"traceback word", "no traceback here", nil},
		{"at word", "look at this (really:1:2 maybe)", nil},
		{"at a time", "Meeting at noon (10:30:00), reminder at 10:30:45", nil},
		{"java-ish prose", "at com.example we value (quality)", nil},
		{"short ghp", "ghp_short", nil},
		{"github in word", "xghp_" + strings.Repeat("a1B2", 9), nil},
		{"aws lowercase", "akiaiosfodnn7example", nil},
		{"aws too short", "AKIA1234", nil},
		{"aws inside word", "XAKIA" + "IOSFODNN7EXAMPLE", nil},
		{"one-part jwt", "eyJhbGciOiJIUzI1NiJ9", nil},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBg", nil},
		{"sk word", "task-abcdefghijklmnopqrstuvwxyz0123456789", nil},
		{"email", "contact admin@example.com:25", nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewDetector(nil).Find(tc.text)
			var gotW []want
			for _, m := range got {
				gotW = append(gotW, want{m.Kind, m.Detail})
			}
			if fmt.Sprint(gotW) != fmt.Sprint(tc.want) {
				t.Errorf("Find(%q) =\n%v\nwant\n%v\n(matches %+v)", tc.text, gotW, tc.want, got)
			}
			for _, m := range got {
				if m.Excerpt == "" || utf8.RuneCountInString(m.Excerpt) > 120 {
					t.Errorf("excerpt %q: empty or longer than 120 characters", m.Excerpt)
				}
			}
		})
	}
}

func TestFindSecretValues(t *testing.T) {
	d := NewDetector(map[string]string{
		"--env API_KEY":          "s3cr3t-value-123",
		"--header Authorization": "Bearer tok_abcdef123456",
		"--env SHORT":            "abc",      // too short: ignored
		"--env QUOTED":           `pa"ss\wd`, // has JSON-escaped forms
	})
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"the key is s3cr3t-value-123!", []string{"value of --env API_KEY"}},
		{`{"auth":"Bearer tok_abcdef123456"}`, []string{"value of --header Authorization"}},
		{`token tok_abcdef123456 leaked`, []string{"value of --header Authorization"}},
		{`{"p":"pa\"ss\\wd"}`, []string{"value of --env QUOTED"}},
		{`{"p":"{\"q\":\"pa\\\"ss\\\\wd\"}"}`, []string{"value of --env QUOTED"}}, // escaped twice
		{"abc abc abc", nil},
		{"s3cr3t-value-12", nil},
		{"tok_abcdef123456 then s3cr3t-value-123", []string{"value of --header Authorization", "value of --env API_KEY"}},
	} {
		var got []string
		for _, m := range d.Find(tc.text) {
			if m.Kind != KindSecretValue {
				t.Errorf("Find(%q): unexpected %+v", tc.text, m)
				continue
			}
			got = append(got, m.Detail)
			for _, v := range []string{"s3cr3t-value-123", "tok_abcdef123456", `pa"ss\wd`, `pa\"ss\\wd`} {
				if strings.Contains(m.Excerpt, v) {
					t.Errorf("excerpt %q shows a secret", m.Excerpt)
				}
			}
			if !strings.Contains(m.Excerpt, "***") {
				t.Errorf("excerpt %q does not show where the secret was", m.Excerpt)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Find(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	d := NewDetector(map[string]string{"K": "hunter22"})
	long := strings.Repeat("lorem ipsum ", 40)
	text := long + "error\n\n\tat fn (/app/x.js:1:2) token " + ghToken + " pw hunter22 " + long
	ms := d.Find(text)
	if len(ms) != 4 {
		t.Fatalf("Find = %+v, want a frame, a path, a token and a secret", ms)
	}
	frame := ms[0]
	if frame.Detail != "Node stack frame" {
		t.Fatalf("first match %+v", frame)
	}
	for _, m := range ms {
		if n := utf8.RuneCountInString(m.Excerpt); n > 120 {
			t.Errorf("excerpt has %d characters", n)
		}
		if strings.Contains(m.Excerpt, ghToken[:10]) || strings.Contains(m.Excerpt, "hunter22") {
			t.Errorf("excerpt %q shows a secret", m.Excerpt)
		}
		if strings.ContainsAny(m.Excerpt, "\n\t") || strings.Contains(m.Excerpt, "  ") {
			t.Errorf("excerpt %q is not one tidy line", m.Excerpt)
		}
	}
	// A quarter before the match, the rest after it, cut ends marked.
	want := "…orem ipsum lorem ipsum error at fn (/app/x.js:1:2) token *** pw *** lorem ipsum"
	if !strings.HasPrefix(frame.Excerpt, want) || !strings.HasSuffix(frame.Excerpt, "…") || utf8.RuneCountInString(frame.Excerpt) != 120 {
		t.Errorf("excerpt = %q, want 120 characters starting %q and ending with …", frame.Excerpt, want)
	}
	// A token cut by the excerpt's window is still redacted whole.
	text = strings.Repeat("x ", 200) + "at f (/a/b.js:1:2) " + strings.Repeat("y", 80) + " " + ghToken
	for _, m := range d.Find(text) {
		if strings.Contains(m.Excerpt, "ghp_") {
			t.Errorf("excerpt %q shows part of a token", m.Excerpt)
		}
	}
}

func TestRedact(t *testing.T) {
	d := NewDetector(map[string]string{
		"--env A":      "alpha-secret",
		"--env B":      "alpha-secret-longer", // contains A
		"--header X":   "Bearer xyz-credential",
		"--env U":      "ünïcödé-sécret",
		"--env Q":      `q"uo<te>`,
		"--env TINY":   "ab",
		"--env SPACES": "with space&more",
	})
	for _, tc := range []struct{ in, want string }{
		{"alpha-secret and alpha-secret-longer", "*** and ***"},
		{"header Bearer xyz-credential, bare xyz-credential", "header ***, bare ***"},
		{"ünïcödé-sécret", "***"},
		{`{"u":"\u00fcn\u00efc\u00f6d\u00e9-s\u00e9cret"}`, `{"u":"***"}`}, // Python ensure_ascii
		{`{"q":"q\"uo\u003cte\u003e"}`, `{"q":"***"}`},                     // Go's HTML-safe JSON
		{`{"q":"q\"uo<te>"}`, `{"q":"***"}`},
		{"ab ab", "ab ab"},
		{"https://x/?v=with+space%26more", "https://x/?v=***"},
		{"key " + awsKey + " tok " + ghToken, "key *** tok ***"},
		{"pem " + privKey + " after", "pem *** after"},
		{"nothing here", "nothing here"},
	} {
		if got := d.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactSecretWithStars(t *testing.T) {
	d := NewDetector(map[string]string{"S": "a***"})
	for _, in := range []string{"aa***", "aaaa***", "a***a***", "xa****"} {
		if got := d.Redact(in); strings.Contains(got, "a***") {
			t.Errorf("Redact(%q) = %q still contains the secret", in, got)
		}
	}
}

func TestFindScansOnlyTheStart(t *testing.T) {
	d := NewDetector(map[string]string{"S": "needle-secret"})
	big := strings.Repeat("harmless text ", MaxScan/14+10)
	if ms := d.Find(big + "Traceback (most recent call last):"); len(ms) != 0 {
		t.Errorf("Find reported %+v beyond MaxScan", ms)
	}
	// A secret straddling the cut is still found and redacted.
	text := strings.Repeat("x", MaxScan-4) + "needle-secret" + strings.Repeat("x", 100)
	if ms := d.Find(text); len(ms) != 1 || ms[0].Kind != KindSecretValue || strings.Contains(ms[0].Excerpt, "needle") {
		t.Errorf("Find = %+v, want the straddling secret, redacted", ms)
	}
	// Redact covers the whole text.
	if got := d.Redact(big + "needle-secret"); strings.Contains(got, "needle-secret") {
		t.Error("Redact missed a secret beyond MaxScan")
	}
}

func TestFindDeterministic(t *testing.T) {
	d := NewDetector(map[string]string{"B": "bbbb-secret", "A": "aaaa-secret"})
	text := "aaaa-secret bbbb-secret " + awsKey + " at f (/x.js:1:2)"
	first := fmt.Sprint(d.Find(text))
	for range 20 {
		if again := fmt.Sprint(NewDetector(map[string]string{"B": "bbbb-secret", "A": "aaaa-secret"}).Find(text)); again != first {
			t.Fatalf("Find is not deterministic:\n%s\n%s", first, again)
		}
	}
}

func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"Traceback (most recent call last):\n  File \"/x.py\", line 3",
		"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/x.go:12 +0x1d",
		"    at fn (/app/x.js:1:2)",
		"at com.example.X.method(X.java:42)",
		`C:\src\x.cs:line 12`,
		"key " + awsKey + " " + ghToken + " " + jwt,
		privKey,
		"https://example.com/a:1",
	} {
		f.Add(s, "hunter22")
	}
	f.Add("xxhunter22hunter22", "hunter22")
	f.Add(`{"a":"p\"w\u003c"}`, `p"w<`)
	f.Add("a*****", "a***")
	f.Fuzz(func(t *testing.T, text, secret string) {
		d := NewDetector(map[string]string{"--env S": secret})
		ms := d.Find(text)
		for _, m := range ms {
			switch m.Kind {
			case KindStackTrace, KindSourcePath, KindSecretToken, KindSecretValue:
			default:
				t.Fatalf("unknown kind %q", m.Kind)
			}
			if n := utf8.RuneCountInString(m.Excerpt); n > 120 {
				t.Fatalf("excerpt has %d characters", n)
			}
			if len(secret) >= MinSecretLen && strings.Contains(m.Excerpt, secret) {
				t.Fatalf("excerpt %q contains the secret %q", m.Excerpt, secret)
			}
		}
		out := d.Redact(text)
		if len(secret) >= MinSecretLen && strings.Contains(out, secret) {
			t.Fatalf("Redact(%q) = %q contains the secret %q", text, out, secret)
		}
		if len(out) > len(text) && len(secret) >= MinSecretLen {
			// "***" is shorter than any secret or token it replaces.
			t.Fatalf("Redact grew the text: %d -> %d", len(text), len(out))
		}
	})
}

func BenchmarkFind(b *testing.B) {
	// 1 MiB of log-like text with no leak: every pattern scans all of it.
	var sb strings.Builder
	lines := []string{
		"2024-05-01T10:00:00Z INFO request handled at /api/v1/items in 12ms (status 200)\n",
		"Invalid arguments: expected string, received number at path /limit\n",
		"see https://example.com/docs/a.html:1 and the file report.json for more\n",
		"the quick brown fox jumps over the lazy dog, at least 3 items at most 10\n",
	}
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString(lines[i%len(lines)])
	}
	text := sb.String()
	d := NewDetector(map[string]string{"--env API_KEY": "s3cr3t-value-123", "--header Authorization": "Bearer abcdef123456"})
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if ms := d.Find(text); len(ms) != 0 {
			b.Fatalf("false positives: %+v", ms)
		}
	}
}

func BenchmarkRedact(b *testing.B) {
	text := strings.Repeat("ordinary output with a s3cr3t-value-123 inside and more words\n", (1<<20)/64)
	d := NewDetector(map[string]string{"--env API_KEY": "s3cr3t-value-123"})
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		d.Redact(text)
	}
}
