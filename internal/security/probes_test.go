package security

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func testEnv(t *testing.T) Env {
	t.Helper()
	a, err := NewArea(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	l, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return Env{Area: a, Base: a.Scratch, Listener: l, Rand: rand.New(rand.NewPCG(1, 2))}
}

func TestFamiliesByNameDescriptionFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    Property
		want []Family
	}{
		{Property{Name: "path"}, []Family{PathTraversal}},
		{Property{Name: "note", Description: "The file to read."}, []Family{PathTraversal}},
		{Property{Name: "host"}, []Family{CommandInjection, SSRF}},
		{Property{Name: "expression"}, []Family{CodeInjection}},
		{Property{Name: "username"}, []Family{SQLInjection}},
		{Property{Name: "target", Format: "uri"}, []Family{CommandInjection, SSRF}},
		{Property{Name: "page", Format: "uri"}, []Family{SSRF}},
		{Property{Name: "count"}, nil},
		{Property{Name: "text", Description: "Free text to echo back."}, nil},
		{Property{Name: "file", Tool: "Sort the lines of a file with the sort command."}, []Family{PathTraversal, CommandInjection}},
		{Property{Name: "text", Tool: "Run a search over the notes."}, nil},
	} {
		if got := families(tt.p); !slices.Equal(got, tt.want) {
			t.Errorf("families(%+v) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

// No payload holds the evidence that would confirm it: an answer that
// only echoes its input proves nothing.
func TestEvidenceIsNeverInThePayload(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	props := []Property{
		{Name: "path", Pointer: "/path", Base: "notes.txt"},
		{Name: "command", Pointer: "/command", Base: "ls"},
		{Name: "expression", Pointer: "/expression", Base: "1+1"},
		{Name: "name", Pointer: "/name", Base: "alice"},
		{Name: "url", Pointer: "/url", Base: "https://example.com"},
	}
	probes := Plan(props, env, 0)
	fams := map[Family]int{}
	ids := map[string]bool{}
	for _, p := range probes {
		fams[p.Family]++
		id := p.Pointer + "#" + string(p.Family) + "." + p.Variant
		if ids[id] {
			t.Errorf("two probes %s", id)
		}
		ids[id] = true
		if p.Evidence != "" && strings.Contains(p.Value, p.Evidence) {
			t.Errorf("%s: payload %q holds its evidence %q", id, p.Value, p.Evidence)
		}
		if p.Hit != "" && !strings.Contains(p.Value, p.Hit) {
			t.Errorf("%s: URL %q without its token", id, p.Value)
		}
		for _, c := range env.Area.Canaries {
			if strings.Contains(p.Value, c.Token) {
				t.Errorf("%s: payload %q holds a canary's token", id, p.Value)
			}
		}
		if p.Family == CommandInjection && (p.File == "" || !strings.HasPrefix(p.File, env.Area.Scratch+"/")) {
			t.Errorf("%s: file %q not in the scratch area", id, p.File)
		}
	}
	for _, f := range Families {
		if fams[f] == 0 {
			t.Errorf("no probe of %s", f)
		}
	}
	if got := Plan(props, env, 10); len(got) != 10 {
		t.Errorf("Plan with max 10: %d probes", len(got))
	}
}

// Path payloads need the boundary the server was given: without
// {scratch} (the scratch area as the base) none is sent.
func TestPathProbesNeedTheScratchArea(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.Base = "/srv/app/data"
	for _, p := range Plan([]Property{{Name: "file", Pointer: "/file"}}, env, 0) {
		if p.Family == PathTraversal {
			t.Errorf("a path probe without the scratch area: %+v", p)
		}
	}
}

// A string no family suits still gets the two command substitutions.
func TestFreeStringsGetTheSubstitutions(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	var got []string
	for _, p := range Plan([]Property{{Name: "message", Pointer: "/message", Base: "fix"}}, env, 0) {
		got = append(got, string(p.Family)+"."+p.Variant)
	}
	if want := []string{"command_injection.subshell", "command_injection.backticks"}; !slices.Equal(got, want) {
		t.Errorf("probes %v, want %v", got, want)
	}
}
