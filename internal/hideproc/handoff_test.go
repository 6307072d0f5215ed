package hideproc

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		args, env []string
	}{
		{"empty", nil, nil},
		{"plain", []string{"mcp-fuzz", "--bearer", "s3cr3t-XYZ", "--", "npx", "server"}, []string{"PATH=/bin", "GITHUB_TOKEN=ghp_abc"}},
		{"odd bytes", []string{"", "a\x00b", "\xff\xfe", strings.Repeat("é", 1000)}, []string{"=leading", "NAME=a=b=c", "NO_EQUALS", "K=\x00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := encode(tc.args, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			args, env, err := decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(args, tc.args) || !slices.Equal(env, tc.env) {
				t.Errorf("decode(encode(%q, %q)) = %q, %q", tc.args, tc.env, args, env)
			}
		})
	}
}

func TestEncodeRefusesHuge(t *testing.T) {
	t.Parallel()
	if _, err := encode([]string{"x"}, []string{strings.Repeat("v", MaxHandoff)}); !errors.Is(err, errTooLarge) {
		t.Errorf("encode of over %d bytes: err = %v, want %v", MaxHandoff, err, errTooLarge)
	}
}

func TestDecodeRefusesGarbage(t *testing.T) {
	t.Parallel()
	good, err := encode([]string{"a", "bc"}, []string{"K=V"})
	if err != nil {
		t.Fatal(err)
	}
	u32 := func(n uint32) string { return string(binary.BigEndian.AppendUint32(nil, n)) }
	for name, b := range map[string]string{
		"empty":            "",
		"no magic":         "hello world",
		"other version":    "mcp-fuzz handoff 2\n" + u32(0) + u32(0),
		"magic alone":      magic,
		"cut in a count":   magic + "\x00\x00",
		"cut in a string":  string(good[:len(good)-1]),
		"one list only":    magic + u32(0),
		"huge count":       magic + u32(0xffffffff),
		"huge length":      magic + u32(1) + u32(0xfffffff0) + "abc",
		"bytes after end":  string(good) + "x",
		"count over bytes": magic + u32(3) + u32(0) + u32(0),
	} {
		if args, env, err := decode([]byte(b)); err == nil {
			t.Errorf("%s: decode = %q, %q, nil; want an error", name, args, env)
		}
	}
	if _, _, err := decode(make([]byte, MaxHandoff+1)); !errors.Is(err, errTooLarge) {
		t.Errorf("decode of over %d bytes: err = %v, want %v", MaxHandoff, err, errTooLarge)
	}
}

func TestReduceKeepsHarmlessVariables(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin", "GITHUB_TOKEN=ghp_0123456789abcdef", "HOME=/root", "PATH=/second",
		"LC_ALL=C.UTF-8", "GODEBUG=madvdontneed=1", "MCP_FUZZ_BEARER=s3cr3t-XYZ",
		"INPUT_GITHUB-TOKEN=ghs_x", "HTTPS_PROXY=http://user:pw@proxy:3128", "NO_COLOR=1",
		"=leading", "NOEQUALS", "LCX=1",
	}
	want := []string{"PATH=/usr/bin", "HOME=/root", "LC_ALL=C.UTF-8", "GODEBUG=madvdontneed=1", "NO_COLOR=1"}
	if got := reduce(environ); !slices.Equal(got, want) {
		t.Errorf("reduce = %q, want %q", got, want)
	}
}

func TestRestoreFirstEntryWins(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	setenv := func(k, v string) error {
		if strings.ContainsRune(k+v, 0) {
			return errors.New("invalid argument")
		}
		got[k] = v
		return nil
	}
	skipped := restore([]string{"A=1", "B=x=y", "A=2", "=leading", "NOEQUALS", "C=\x00", "D="}, setenv)
	want := map[string]string{"A": "1", "B": "x=y", "D": ""}
	if len(got) != len(want) || got["A"] != "1" || got["B"] != "x=y" || got["D"] != "" {
		t.Errorf("restored %q, want %q", got, want)
	}
	if skipped != 3 {
		t.Errorf("skipped = %d, want 3", skipped)
	}
}
