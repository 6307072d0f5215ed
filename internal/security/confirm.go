package security

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
)

// Answer is what a server said to one probe, as the engine read it.
type Answer struct {
	// Answered is false for a call that crashed, hung or broke the
	// protocol: such an answer proves nothing and disproves nothing.
	Answered bool
	// Error is true for a JSON-RPC error or an isError result.
	Error bool
	// Text is the answer's text: the result's text and structured
	// content, or the error's message and data.
	Text string
}

// Confirm reports the evidence that p worked, from its answer and from
// what is on disk and at the listener, or "" when there is none. SQL
// probes are judged together by [JudgeSQL] instead.
func Confirm(p Probe, a Answer, env Env) string {
	switch {
	case p.Family == PathTraversal && env.Area != nil:
		for _, c := range env.Area.Canaries {
			if strings.Contains(a.Text, c.Token) {
				return fmt.Sprintf("the answer holds the token %s of the %s canary %s", c.Token, c.Where, c.Path)
			}
		}
	case p.Evidence != "" && strings.Contains(a.Text, p.Evidence) && !strings.Contains(p.Value, p.Evidence):
		return fmt.Sprintf("the answer holds %s, which only running %s makes", p.Evidence, strconv.Quote(p.Shows))
	default:
		return sideEffect(p, env, "")
	}
	return ""
}

// Late reports evidence that can appear after a call's answer (a file an
// injected command created, a request made in the background), for a
// probe whose answer showed none.
func Late(p Probe, env Env) string {
	return sideEffect(p, env, " (after the answer)")
}

// sideEffect reports the evidence a probe left outside its answer: the
// file its command creates, or a request to the listener with its token.
func sideEffect(p Probe, env Env, when string) string {
	if p.File != "" && exists(p.File) {
		return fmt.Sprintf("the injected command created %s%s", p.File, when)
	}
	if p.Hit != "" && env.Listener != nil {
		if hit := env.Listener.Hit(p.Hit); hit != "" {
			return fmt.Sprintf("mcp-fuzz's loopback listener was requested%s: %s", when, hit)
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// sqlErrors are the syntax-error messages of common database engines
// (and their drivers) for an unbalanced quote: text a server that does not
// build queries from its input has no reason to write.
var sqlErrors = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`SQLITE_ERROR`,
	`sqlite3\.OperationalError`,
	`OperationalError: (near|unrecognized token)`,
	`unrecognized token: "`,
	`near "[^"]{0,80}": syntax error`,
	`You have an error in your SQL syntax`,
	`unterminated quoted string at or near`,
	`syntax error at or near`,
	`Unclosed quotation mark after the character string`,
	`quoted string not properly terminated`,
	`ORA-0(0933|1756)`,
	`SQLSTATE\[(42000|42601|HY000)\]`,
	`PG::SyntaxError`,
	`psycopg2?\.errors\.SyntaxError`,
	`com\.mysql\.jdbc`,
	`MariaDB server version for the right syntax`,
}, "|"))

// SQLVerdict is the judgement of one property's SQL probes.
type SQLVerdict struct {
	Role     string // the probe the finding is on: RoleOrTrue or RoleQuote
	Evidence string
}

// JudgeSQL judges the SQL probes of one group, by role. It confirms an
// injection only by one of:
//
//   - at least two of the three pairs (' OR 'x'='x / 'y', ' OR 'x' LIKE
//     'x / 'y, ' OR 1=1 -- / 1=2 -- ) show a query's logic: the true
//     condition changes the answer of the plain no-match value, the false
//     one leaves it as it was, and the true conditions change it the same
//     way (answers compared with each payload's own text taken out, so a
//     server that echoes its input does not count);
//   - the unbalanced quote brings a database's syntax error that the
//     plain value did not.
//
// A server that ignores the value, searches by substrings or words, or
// answers differently each time fails these tests and is no finding.
func JudgeSQL(probes map[string]Probe, answers map[string]Answer) (SQLVerdict, bool) {
	none, ok := answers[RoleNone]
	if !ok || !none.Answered {
		return SQLVerdict{}, false
	}
	norm := func(role string) (string, bool) {
		a, ok := answers[role]
		if !ok || !a.Answered {
			return "", false
		}
		t := a.Text
		if v := probes[role].Value; v != "" {
			t = strings.ReplaceAll(t, v, "\x00")
			if q := strconv.Quote(v); len(q) > 2 {
				t = strings.ReplaceAll(t, q[1:len(q)-1], "\x00")
			}
		}
		return t, true
	}
	base, _ := norm(RoleNone)
	var agree [][2]string
	trueAnswer := ""
	for _, pair := range [][2]string{{RoleOrTrue, RoleOrFalse}, {RoleLikeTrue, RoleLikeFalse}, {RoleCommentTrue, RoleCommentFalse}} {
		t, ok1 := norm(pair[0])
		f, ok2 := norm(pair[1])
		if !ok1 || !ok2 || answers[pair[0]].Error || f != base || t == base {
			continue
		}
		if len(agree) > 0 && t != trueAnswer {
			continue
		}
		trueAnswer = t
		agree = append(agree, pair)
	}
	if len(agree) >= 2 {
		var trues, falses []string
		for _, pair := range agree {
			trues = append(trues, strconv.Quote(probes[pair[0]].Value))
			falses = append(falses, strconv.Quote(probes[pair[1]].Value))
		}
		return SQLVerdict{Role: agree[0][0], Evidence: fmt.Sprintf(
			"%s changed the answer that the plain value %s got, each the same way, while %s left it as it was: the value is part of an SQL query",
			strings.Join(trues, " and "), strconv.Quote(probes[RoleNone].Value), strings.Join(falses, " and "))}, true
	}
	if q, ok := answers[RoleQuote]; ok && q.Answered {
		if m := sqlErrors.FindString(q.Text); m != "" && !sqlErrors.MatchString(none.Text) {
			return SQLVerdict{Role: RoleQuote, Evidence: fmt.Sprintf(
				"an unbalanced quote in %s brought a database syntax error (%s) that the plain value did not",
				strconv.Quote(probes[RoleQuote].Value), strconv.Quote(textcut.Excerpt(m, 120)))}, true
		}
	}
	return SQLVerdict{}, false
}
