package secret

import (
	"slices"
	"testing"
)

func TestEligible(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"true", false},
		{"FALSE", false},
		{"1", false},
		{"12345678901", false}, // a number, however long
		{"3.14159265", false},
		{"test", false},    // under 8 characters
		{"abcdefg", false}, // 7
		{"/usr/local/bin:/usr/bin", false},
		{"/home/runner/work", false},
		{`C:\Users\runner`, false},
		{"http://proxy.internal:3128", false},
		{"https://example.com/mcp?page=2", false},
		{"https://example.com/mcp?token=" + "s3cr3tV4lu3xyz", true}, // a URL with a credential is one
		{"https://user:hunter22@example.com/", true},
		{"mcpfuzz-canary-7f3a9c1e5b", true},
		{"production", true}, // eligible; only a secret name makes it a secret
		{"/tmp/ghp_0123456789abcdefghijklmnopqrstuvwxyz", true},
	} {
		if got := Eligible(tc.v); got != tc.want {
			t.Errorf("Eligible(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestSecretName(t *testing.T) {
	for _, n := range []string{"API_TOKEN", "GITHUB_TOKEN", "aws_secret_access_key", "DB_PASSWORD", "PGPASS", "MYSQL_PWD", "X-Api-Key", "Authorization", "Cookie", "SESSION_ID", "PRIVATE_KEY", "SIGNING_SALT", "SENTRY_DSN", "npm_config__auth", "CREDENTIALS"} {
		if !SecretName(n) {
			t.Errorf("SecretName(%q) = false, want true", n)
		}
	}
	for _, n := range []string{"PATH", "HOME", "DEBUG", "N8N_MCP_TELEMETRY_DISABLED", "HTTP_PROXY", "LOG_LEVEL", "X-Tenant", "KEY_FILE", "SSH_AUTH_SOCK", "CREDENTIALS_PATH", "TOKEN_DIR"} {
		if SecretName(n) {
			t.Errorf("SecretName(%q) = true, want false", n)
		}
	}
}

func TestLooksLikeCredential(t *testing.T) {
	for _, v := range []string{
		"ghp_0123456789abcdefghijklmnopqrstuvwxyz",
		"sk-proj-abcdefghijklmnop",
		"AKIAIOSFODNN7EXAMPLE",
		"xoxb-123456789012-abcdef",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefgh",
		"mcpfuzz-canary-7f3a9c1e5b",
		"9f86d081884c7d659a2feaa0c55ad015",
	} {
		if !LooksLikeCredential(v) {
			t.Errorf("LooksLikeCredential(%q) = false, want true", v)
		}
	}
	for _, v := range []string{
		"production", "hello world, this is long", "aaaaaaaaaaaaaaaaaaaa1", "true",
		"my-very-long-project-name", "2024-01-01T00:00:00Z",
	} {
		if LooksLikeCredential(v) {
			t.Errorf("LooksLikeCredential(%q) = true, want false", v)
		}
	}
}

func TestCollect(t *testing.T) {
	caller := map[string]string{
		"GITHUB_TOKEN": "ghs_callerTokenValue0123456789",
		"HOME":         "/root",
		"OTHER":        "not-a-secret-at-all",
		"VENDOR_ID":    "vendor-abc-long",
	}
	got := Collect(Inputs{
		Bearer:  "bearer-canary-12345",
		Headers: []string{"X-Tenant: test", "X-Api-Key: key-canary-6789", "Authorization: Bearer hdr-canary-abcdef", "Accept: application/json"},
		URL:     "https://user:url-pass-canary@example.com/mcp?api_key=query-canary-1&page=2",
		Env: []string{
			"API_TOKEN=env-canary-7f3a9c1e5b",
			"DEBUG=true",
			"N8N_MCP_TELEMETRY_DISABLED=true",
			"PORT=8080",
			"LOG_LEVEL=debugging",
			"RANDOM_BLOB=Zq9xT4mWv2Lr8Kp3",
			"SHORT_TOKEN=abc",
			"DATA_DIR=/var/lib/data",
		},
		PassEnv:   []string{"GITHUB_TOKEN", "HOME"},
		Named:     []string{"VENDOR_ID"},
		LookupEnv: func(n string) (string, bool) { v, ok := caller[n]; return v, ok },
	})
	want := []Entry{
		{"--bearer", "bearer-canary-12345"},
		{"--env API_TOKEN", "env-canary-7f3a9c1e5b"},
		{"--env GITHUB_TOKEN", "ghs_callerTokenValue0123456789"},
		{"--env RANDOM_BLOB", "Zq9xT4mWv2Lr8Kp3"},
		{"--header Authorization", "Bearer hdr-canary-abcdef"},
		{"--header Authorization credential", "hdr-canary-abcdef"},
		{"--header X-Api-Key", "key-canary-6789"},
		{"--url password", "url-pass-canary"},
		{"--url query api_key", "query-canary-1"},
		{"secret VENDOR_ID", "vendor-abc-long"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Collect:\n got %q\nwant %q", got, want)
	}
}

func TestCollectNamedFromCallerAndShortValues(t *testing.T) {
	got := Collect(Inputs{
		Named: []string{"DB_URL", "PIN", "UNSET"},
		LookupEnv: func(n string) (string, bool) {
			return map[string]string{"DB_URL": "postgres://u:p4ss@db/x", "PIN": "12"}[n], n != "UNSET"
		},
	})
	want := []Entry{{"secret DB_URL", "postgres://u:p4ss@db/x"}}
	if !slices.Equal(got, want) {
		t.Errorf("Collect = %q, want %q", got, want)
	}
}

// Lists of hosts (NO_PROXY, allowed hosts) are configuration, not secrets;
// credentials, dotted ones included, still are.
func TestHostListsAreNotSecrets(t *testing.T) {
	t.Parallel()
	for _, v := range []string{
		"127.0.0.1,localhost",
		"localhost,127.0.0.1,::1,.internal.example.com,10.0.0.0/8",
		"api.example.com:8443, *.svc.cluster.local",
		"*",
		"http://proxy.example.com:3128,no-proxy.example.org",
	} {
		if Eligible(v) {
			t.Errorf("Eligible(%q) = true: a host list is no secret", v)
		}
	}
	for _, v := range []string{
		"ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789",
		"a9F3kQ7zP2mX8vL1.example.com",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"s3cr3t-passw0rd-2024",
		"localhost,hunter2hunter2hunter2x9",
	} {
		if !Eligible(v) {
			t.Errorf("Eligible(%q) = false: a credential", v)
		}
	}
}
