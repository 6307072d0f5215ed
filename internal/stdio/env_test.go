package stdio

import (
	"reflect"
	"strings"
	"testing"
)

func lookupFrom(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestMinimalEnv(t *testing.T) {
	caller := lookupFrom(map[string]string{
		"PATH":          "/usr/bin:/bin",
		"HOME":          "/home/u",
		"LANG":          "C.UTF-8",
		"SECRET_X":      "s3cr3t",
		"GITHUB_TOKEN":  "ghp_x",
		"OPENAI_KEY":    "sk-x",
		"EMPTY":         "",
		"LD_PRELOAD":    "/evil.so",
		"AWS_PROFILE":   "prod",
		"MCP_FUZZ_BEAR": "b",
	})
	got, err := MinimalEnv(caller, []string{"MODE=test", "LANG=fr_FR.UTF-8", "URL=http://x/?a=b", "EMPTY_VAL="}, []string{"OPENAI_KEY", "EMPTY"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"EMPTY=",
		"EMPTY_VAL=",
		"HOME=/home/u",
		"LANG=fr_FR.UTF-8", // --env wins over the allowlist
		"MODE=test",
		"OPENAI_KEY=sk-x",
		"PATH=/usr/bin:/bin",
		"URL=http://x/?a=b",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MinimalEnv =\n%q\nwant\n%q", got, want)
	}
	for _, kv := range got {
		for _, bad := range []string{"SECRET_X", "GITHUB_TOKEN", "LD_PRELOAD", "AWS_PROFILE"} {
			if strings.HasPrefix(kv, bad+"=") {
				t.Errorf("leaked %s", kv)
			}
		}
	}
}

func TestMinimalEnvIsDeterministic(t *testing.T) {
	caller := lookupFrom(map[string]string{"PATH": "/bin", "HOME": "/h", "TZ": "UTC", "USER": "u"})
	first, _ := MinimalEnv(caller, []string{"B=1", "A=2"}, nil)
	for range 20 {
		again, _ := MinimalEnv(caller, []string{"B=1", "A=2"}, nil)
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("MinimalEnv is not deterministic: %q vs %q", first, again)
		}
	}
}

func TestMinimalEnvLaterEntriesWin(t *testing.T) {
	caller := lookupFrom(map[string]string{"PATH": "/bin", "X": "from-caller"})
	got, err := MinimalEnv(caller, []string{"X=first", "X=second", "PATH=/opt/bin"}, []string{"X"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"PATH=/opt/bin", "X=second"}; !reflect.DeepEqual(got, want) {
		t.Errorf("MinimalEnv = %q, want %q", got, want)
	}
}

func TestMinimalEnvErrors(t *testing.T) {
	caller := lookupFrom(map[string]string{"PATH": "/bin"})
	for _, tc := range []struct {
		extra, pass []string
		want        []string // substrings of the error
	}{
		{extra: []string{"NOEQUALS"}, want: []string{`"NOEQUALS"`, "NAME=VALUE"}},
		{extra: []string{"=value"}, want: []string{"empty variable name"}},
		{extra: []string{"A=b\x00c"}, want: []string{"NUL"}},
		{pass: []string{"NOT_SET"}, want: []string{"pass-env NOT_SET is not set"}},
		{pass: []string{""}, want: []string{"empty variable name"}},
		{pass: []string{"A=B"}, want: []string{"'='"}},
		{extra: []string{"BAD"}, pass: []string{"MISSING"}, want: []string{"BAD", "MISSING"}}, // all at once
	} {
		_, err := MinimalEnv(caller, tc.extra, tc.pass)
		if err == nil {
			t.Errorf("MinimalEnv(%q, %q) succeeded", tc.extra, tc.pass)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("MinimalEnv(%q, %q) error %q does not mention %q", tc.extra, tc.pass, err, w)
			}
		}
	}
}

func TestMinimalEnvNilLookup(t *testing.T) {
	got, err := MinimalEnv(nil, []string{"A=1"}, nil)
	if err != nil || !reflect.DeepEqual(got, []string{"A=1"}) {
		t.Errorf("MinimalEnv(nil) = %q, %v", got, err)
	}
}
