package security

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

func probeOf(t *testing.T, probes []Probe, fam Family, variant string) Probe {
	t.Helper()
	for _, p := range probes {
		if p.Family == fam && p.Variant == variant {
			return p
		}
	}
	t.Fatalf("no probe %s.%s", fam, variant)
	return Probe{}
}

func TestConfirmPathTraversal(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	probes := Plan([]Property{{Name: "path", Pointer: "/path"}}, env, 0)
	p := probeOf(t, probes, PathTraversal, "dotdot")
	parent, _ := env.Area.Canary(CanaryParent)
	b, _ := os.ReadFile(parent.Path)
	if ev := Confirm(p, Answer{Answered: true, Text: string(b)}, env); !strings.Contains(ev, parent.Token) || !strings.Contains(ev, "parent canary") {
		t.Errorf("the canary's content came back, evidence %q", ev)
	}
	for _, text := range []string{"Access denied: path outside allowed directories: " + p.Value, "ENOENT", ""} {
		if ev := Confirm(p, Answer{Answered: true, Error: true, Text: text}, env); ev != "" {
			t.Errorf("Confirm(%q) = %q, want no evidence", text, ev)
		}
	}
}

func TestConfirmInjection(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	probes := Plan([]Property{{Name: "command", Pointer: "/command", Base: "x"}, {Name: "expression", Pointer: "/expression"}}, env, 0)
	for _, p := range probes {
		if p.Evidence == "" {
			continue
		}
		if ev := Confirm(p, Answer{Answered: true, Text: "pinging x" + p.Evidence + "\n"}, env); ev == "" {
			t.Errorf("%s.%s: the evidence %q in the answer was not seen", p.Family, p.Variant, p.Evidence)
		}
		if ev := Confirm(p, Answer{Answered: true, Text: "pinging " + p.Value}, env); ev != "" {
			t.Errorf("%s.%s: an echo of the payload was taken for evidence: %q", p.Family, p.Variant, ev)
		}
	}
	p := probeOf(t, probes, CommandInjection, "semicolon")
	if ev := Late(p, env); ev != "" {
		t.Fatalf("evidence before the file exists: %q", ev)
	}
	if err := os.WriteFile(p.File, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if ev := Confirm(p, Answer{Answered: true, Text: "ok"}, env); !strings.Contains(ev, p.File) {
		t.Errorf("the file the command creates was not seen: %q", ev)
	}
}

func TestConfirmSSRF(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	probes := Plan([]Property{{Name: "url", Pointer: "/url", Format: "uri"}}, env, 0)
	p := probeOf(t, probes, SSRF, "loopback")
	if ev := Confirm(p, Answer{Answered: true, Text: "fetched " + p.Value}, env); ev != "" {
		t.Fatalf("no request made, evidence %q", ev)
	}
	resp, err := http.Get(p.Value)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ev := Confirm(p, Answer{Answered: true, Error: true, Text: "refused"}, env); !strings.Contains(ev, p.Hit) {
		t.Errorf("the listener was requested, evidence %q", ev)
	}
	other := probeOf(t, probes, SSRF, "localhost")
	if ev := Late(other, env); ev != "" {
		t.Errorf("another probe's request was taken for this one's: %q", ev)
	}
}

// sqlAnswers plays a server: a vulnerable one evaluates the OR, a safe one
// looks the whole value up; both echo the value when nothing matches.
func sqlAnswers(probes []Probe, vulnerable bool, rows string) (map[string]Probe, map[string]Answer) {
	ps, as := map[string]Probe{}, map[string]Answer{}
	for _, p := range probes {
		if p.Family != SQLInjection {
			continue
		}
		ps[p.Role] = p
		text := "no user named " + p.Value
		switch {
		case vulnerable && (p.Role == RoleOrTrue || p.Role == RoleLikeTrue || p.Role == RoleCommentTrue):
			text = rows
		case vulnerable && p.Role == RoleQuote:
			text = `OperationalError: near "` + `": syntax error`
		}
		as[p.Role] = Answer{Answered: true, Text: text}
	}
	return ps, as
}

func TestJudgeSQL(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	probes := Plan([]Property{{Name: "name", Pointer: "/name", Base: "alice"}}, env, 0)
	ps, as := sqlAnswers(probes, true, "1 alice\n2 bob")
	v, ok := JudgeSQL(ps, as)
	if !ok || v.Role != RoleOrTrue {
		t.Fatalf("vulnerable: %+v, %v", v, ok)
	}
	// The error alone proves it too.
	as[RoleOrTrue] = Answer{Answered: true, Text: "no user named " + ps[RoleOrTrue].Value}
	as[RoleLikeTrue] = Answer{Answered: true, Text: "no user named " + ps[RoleLikeTrue].Value}
	if v, ok := JudgeSQL(ps, as); !ok || v.Role != RoleQuote {
		t.Errorf("syntax error only: %+v, %v", v, ok)
	}
	ps, as = sqlAnswers(probes, false, "")
	if v, ok := JudgeSQL(ps, as); ok {
		t.Errorf("safe server that echoes its input: %+v", v)
	}
	// A server whose answers change on their own (a clock) is no finding.
	n := 0
	for role, a := range as {
		n++
		a.Text += " at 12:00:0" + string(rune('0'+n))
		as[role] = a
	}
	if v, ok := JudgeSQL(ps, as); ok {
		t.Errorf("answers that differ every time: %+v", v)
	}
	// In a LIKE '%…%' context the first pair fails ('x'='x%'), the other
	// two still agree.
	ps, as = sqlAnswers(probes, true, "1 alice\n2 bob")
	as[RoleOrTrue] = Answer{Answered: true, Text: "no user named " + ps[RoleOrTrue].Value}
	as[RoleQuote] = as[RoleNone]
	if v, ok := JudgeSQL(ps, as); !ok || v.Role != RoleLikeTrue {
		t.Errorf("two pairs of three: %+v, %v", v, ok)
	}
	// One pair alone (a word search that matches "x") is no finding.
	as[RoleCommentTrue] = Answer{Answered: true, Text: "no user named " + ps[RoleCommentTrue].Value}
	if v, ok := JudgeSQL(ps, as); ok {
		t.Errorf("one pair of three: %+v", v)
	}
	// Two pairs whose true answers differ are no finding either.
	ps, as = sqlAnswers(probes, true, "1 alice")
	as[RoleQuote] = as[RoleNone]
	as[RoleLikeTrue] = Answer{Answered: true, Text: "2 bob"}
	as[RoleCommentTrue] = Answer{Answered: true, Text: "3 carol"}
	if v, ok := JudgeSQL(ps, as); ok {
		t.Errorf("true answers that differ: %+v", v)
	}
	// A true condition that is refused proves nothing.
	ps, as = sqlAnswers(probes, true, "1 alice")
	as[RoleOrTrue] = Answer{Answered: true, Error: true, Text: "invalid characters"}
	as[RoleLikeTrue] = as[RoleOrTrue]
	as[RoleCommentTrue] = as[RoleOrTrue]
	as[RoleQuote] = as[RoleNone]
	if v, ok := JudgeSQL(ps, as); ok {
		t.Errorf("refused: %+v", v)
	}
}

// The server's error text quoted as evidence is bounded, however long.
func TestSQLErrorEvidenceIsBounded(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	ps, as := sqlAnswers(Plan([]Property{{Name: "name", Pointer: "/name"}}, env, 0), false, "")
	as[RoleQuote] = Answer{Answered: true, Error: true, Text: `near "` + strings.Repeat("x", 1<<20) + `": syntax error`}
	if v, ok := JudgeSQL(ps, as); ok && len(v.Evidence) > 600 {
		t.Errorf("evidence of %d bytes", len(v.Evidence))
	}
	as[RoleQuote] = Answer{Answered: true, Error: true, Text: "You have an error in your SQL syntax" + strings.Repeat("x", 1<<20)}
	v, ok := JudgeSQL(ps, as)
	if !ok || len(v.Evidence) > 600 {
		t.Errorf("evidence of %d bytes (ok %v)", len(v.Evidence), ok)
	}
}

// What the listener records of a request is bounded: a token of at most
// 64 characters, a method cut to 16.
func TestListenerHitIsBounded(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	tok := "mcpfz" + strings.Repeat("a", 59)
	req, _ := http.NewRequest(strings.Repeat("M", 4000), env.Listener.URL("127.0.0.1", tok), nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if hit := env.Listener.Hit(tok); hit == "" || len(hit) > 200 {
		t.Errorf("hit %d bytes: %.80q", len(hit), hit)
	}
	long := tok + "b"
	if resp, err := http.Get(env.Listener.URL("127.0.0.1", long)); err == nil {
		resp.Body.Close()
	}
	if hit := env.Listener.Hit(long); hit != "" {
		t.Errorf("a 65-character token was recorded: %q", hit)
	}
}
