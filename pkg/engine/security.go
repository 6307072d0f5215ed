package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/security"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// maxSecurityCases bounds the security cases of one tool.
const maxSecurityCases = 48

// maxReplyText bounds the text of a security case's answer kept for
// judging it.
const maxReplyText = 256 << 10

// securityRun is a run's scratch area, and what its security cases are
// built from and judged against (docs/BEHAVIOUR.md#security-cases).
type securityRun struct {
	area *security.Area
	// cases is false when the scratch area was made only for {scratch}
	// (--security=false).
	cases bool
	// env builds the payloads; judging confirms them: the same, without
	// the canaries inside a directory the server was pointed at (see
	// [withoutGiven]), worked out once, before the server starts.
	env, judging security.Env
}

// withScratch makes the run's scratch area when the target names
// {scratch} or the security cases run, and returns c with {scratch}
// replaced by its path in the command, the environment values and the
// working directory, and a function that removes the area.
func (c Config) withScratch() (Config, func(), error) {
	uses := slices.ContainsFunc(c.Command, security.Uses) || slices.ContainsFunc(c.Env, security.Uses) || security.Uses(c.Cwd)
	cases := !c.NoSecurity && !c.NoCalls
	if !uses && !cases {
		return c, func() {}, nil
	}
	area, err := security.NewArea("")
	if err != nil {
		return c, nil, err
	}
	expand := func(s string) string { return security.Expand(s, area.Scratch) }
	c.Command = mapStrings(c.Command, expand)
	c.Env = mapStrings(c.Env, expand)
	if security.Uses(c.Cwd) {
		// A directory inside the scratch area is made with it.
		c.Cwd = expand(c.Cwd)
		if err := os.MkdirAll(c.Cwd, 0o777); err != nil {
			_ = area.Close()
			return c, nil, fmt.Errorf("%w: working directory %s: %v", ErrConfig, c.Cwd, err)
		}
	}
	sec := &securityRun{area: area, cases: cases}
	done := func() { _ = area.Close() }
	if cases {
		sec.env = security.Env{Area: area}
		if uses {
			sec.env.Base = area.Scratch
		}
		if l, err := security.Listen(); err == nil {
			sec.env.Listener = l
			done = func() { _ = l.Close(); _ = area.Close() }
		}
		sec.judging = withoutGiven(sec.env, givenDirs(c))
	}
	c.sec = sec
	return c, done, nil
}

func mapStrings(in []string, f func(string) string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// givenDirs are the existing directories c names: its working directory,
// its arguments, and its environment values (and their ':'-separated
// parts), resolved.
func givenDirs(c Config) []string {
	var out []string
	add := func(p string) {
		if !filepath.IsAbs(p) && c.Cwd != "" {
			p = filepath.Join(c.Cwd, p)
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if abs, err := filepath.Abs(p); err == nil && !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	if c.Cwd != "" {
		add(c.Cwd)
	}
	for _, a := range c.Command[min(1, len(c.Command)):] {
		_, v, ok := strings.Cut(a, "=")
		if ok && strings.HasPrefix(a, "-") {
			add(v)
		}
		add(a)
	}
	for _, kv := range c.Env {
		_, v, _ := strings.Cut(kv, "=")
		for _, part := range strings.Split(v, string(os.PathListSeparator)) {
			add(part)
		}
	}
	return out
}

// within reports whether path lies in dir (or is dir).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// withoutGiven is env without the canaries that lie in one of the
// directories the server was given (arguments, environment values, its
// working directory): those are the server's to read, and prove nothing.
func withoutGiven(env security.Env, given []string) security.Env {
	if env.Area == nil || len(given) == 0 {
		return env
	}
	a := *env.Area
	a.Canaries = slices.DeleteFunc(slices.Clone(a.Canaries), func(c security.Canary) bool {
		p := c.Path
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return slices.ContainsFunc(given, func(d string) bool { return within(p, d) })
	})
	env.Area = &a
	return env
}

// securityCases returns the security cases of t, built on the arguments
// of its valid call (valid), and remembers their probes for judging.
func (r *runner) securityCases(t tool, schema *casegen.Schema, valid casegen.Case) []casegen.Case {
	sec := r.cfg.sec
	if sec == nil || !sec.cases {
		return nil
	}
	var args map[string]any
	d := json.NewDecoder(bytes.NewReader(valid.Arguments))
	d.UseNumber()
	if err := d.Decode(&args); err != nil || args == nil {
		return nil
	}
	props := stringProperties(t.InputSchema, args)
	for i := range props {
		props[i].Tool = t.Description
	}
	probes := security.Plan(props, sec.env, maxSecurityCases)
	if len(probes) == 0 {
		return nil
	}
	if r.probes == nil {
		r.probes = map[string]security.Probe{}
	}
	out := make([]casegen.Case, 0, len(probes))
	for _, p := range probes {
		a := make(map[string]any, len(args))
		for k, v := range args {
			a[k] = v
		}
		a[p.Name] = p.Value
		raw, err := json.Marshal(a)
		if err != nil {
			continue
		}
		c := casegen.Case{
			ID:          fmt.Sprintf("%s/%s%s#%s.%s", t.Name, casegen.Security, p.Pointer, p.Family, p.Variant),
			Tool:        t.Name,
			Kind:        casegen.Security,
			Pointer:     p.Pointer,
			Arguments:   raw,
			Forbidden:   schema.Compiled() && schema.Validate(raw) != nil,
			Description: string(p.Family) + ": " + p.Description,
		}
		r.probes[c.ID] = p
		out = append(out, c)
	}
	return out
}

// stringProperties are the top-level properties of an input schema that
// take a string and are not fixed by enum or const, with the valid call's
// value of each.
func stringProperties(schema json.RawMessage, args map[string]any) []security.Property {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []security.Property
	for _, n := range names {
		var p struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
			Format      string          `json:"format"`
			Enum        json.RawMessage `json:"enum"`
			Const       json.RawMessage `json:"const"`
		}
		if json.Unmarshal(s.Properties[n], &p) != nil || p.Enum != nil || p.Const != nil || !takesString(p.Type) {
			continue
		}
		base, _ := args[n].(string)
		out = append(out, security.Property{Name: n, Pointer: "/" + casegen.PointerToken(n), Description: p.Description, Format: p.Format, Base: base})
	}
	return out
}

// takesString reports whether a schema's type keyword allows a string.
func takesString(t json.RawMessage) bool {
	var one string
	if json.Unmarshal(t, &one) == nil {
		return one == "string"
	}
	var many []string
	return json.Unmarshal(t, &many) == nil && slices.Contains(many, "string")
}

// reply is what a security case's answer says, for judging it.
func reply(j oracle.Judgement, o oracle.Outcome) security.Answer {
	a := security.Answer{Answered: !j.Verdict.Failure() && j.Verdict != report.NotRun}
	switch {
	case j.Result != nil:
		a.Text, a.Error = j.Result.Text+string(j.Result.StructRaw), j.Result.IsError
	case o.RPCErr != nil:
		a.Text, a.Error = o.RPCErr.Message+" "+string(o.RPCErr.Data), true
	}
	if len(a.Text) > maxReplyText {
		a.Text = a.Text[:maxReplyText]
	}
	return a
}

// judgeSecurity flags rc, a security case just run, with the flaw its
// answer or its side effects prove. SQL probes wait for their group (see
// [runner.judgeSQL]).
func (r *runner) judgeSecurity(rc *report.Case) {
	p, ok := r.probes[rc.ID]
	if !ok {
		return
	}
	if r.replies == nil {
		r.replies = map[string]security.Answer{}
	}
	r.replies[rc.ID] = r.reply
	if p.Family == security.SQLInjection {
		return
	}
	if ev := security.Confirm(p, r.reply, r.cfg.sec.judging); ev != "" {
		markFlaw(rc, string(p.Family), ev)
	}
}

func markFlaw(rc *report.Case, flag, evidence string) {
	if slices.Contains(rc.Flags, flag) {
		return
	}
	rc.Flags = append(rc.Flags, flag)
	rc.Detail = oracle.JoinDetail(flag+" "+report.ProvedMarker+evidence, rc.Detail)
}

// finishSecurity judges what only the whole of a tool's security cases
// shows: the SQL groups, and evidence that came after an answer (a file
// an injected command created, a request made in the background).
func (r *runner) finishSecurity(rt *report.Tool) {
	if len(r.probes) == 0 {
		return
	}
	env := r.cfg.sec.judging
	groups := map[string][]int{}
	for i := range rt.Cases {
		c := &rt.Cases[i]
		p, ok := r.probes[c.ID]
		if !ok {
			continue
		}
		if p.Family == security.SQLInjection {
			groups[p.Group] = append(groups[p.Group], i)
			continue
		}
		if !slices.Contains(c.Flags, string(p.Family)) {
			if ev := security.Late(p, env); ev != "" {
				markFlaw(c, string(p.Family), ev)
			}
		}
	}
	for _, idx := range groups {
		probes, answers := map[string]security.Probe{}, map[string]security.Answer{}
		byRole := map[string]int{}
		for _, i := range idx {
			p := r.probes[rt.Cases[i].ID]
			probes[p.Role], answers[p.Role], byRole[p.Role] = p, r.replies[rt.Cases[i].ID], i
		}
		if v, ok := security.JudgeSQL(probes, answers); ok {
			markFlaw(&rt.Cases[byRole[v.Role]], string(security.SQLInjection), v.Evidence)
		}
	}
	clear(r.probes)
	clear(r.replies)
}

// scratchReport is what the report records of the run's scratch area.
func (s *securityRun) scratchReport() *report.Scratch {
	if s == nil {
		return nil
	}
	a := s.area
	out := &report.Scratch{Dir: a.Scratch, Link: filepath.Join(a.Scratch, a.Link), LinkTarget: a.LinkTarget}
	for _, c := range a.Canaries {
		out.Canaries = append(out.Canaries, report.Canary{Where: c.Where, Path: c.Path, Token: c.Token})
	}
	if l := s.env.Listener; l != nil {
		out.ListenerPort = l.Port()
	}
	return out
}
