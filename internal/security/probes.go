package security

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Family is a kind of security flaw a payload looks for; its name is the
// finding code it raises.
type Family string

// The payload families, in the order a property gets them.
const (
	PathTraversal    Family = "path_traversal"
	CommandInjection Family = "command_injection"
	CodeInjection    Family = "code_injection"
	SQLInjection     Family = "sql_injection"
	SSRF             Family = "ssrf"
)

// Families lists every family in order.
var Families = []Family{PathTraversal, CommandInjection, CodeInjection, SQLInjection, SSRF}

// Property is a string property of a tool's input a payload can go into.
type Property struct {
	Name        string
	Pointer     string // "/path"
	Description string
	Format      string
	// Tool is the tool's own description: a tool that says it runs a
	// command or queries a database puts every string it takes in that
	// family's way.
	Tool string
	// Base is the valid call's value there ("" when it has none).
	Base string
}

// Probe is one payload and the evidence that would prove it worked.
type Probe struct {
	Family  Family
	Variant string // "dotdot", "semicolon", …: with the family, unique per property
	// Name and Pointer are the property's key and its JSON Pointer.
	Name    string
	Pointer string
	Value   string
	// Description is one line for the case: "a path up to the run's parent canary".
	Description string

	// Evidence is the text whose presence in the answer proves the
	// payload ran: the tag-and-sum of an injection (never part of Value).
	// For a path it is empty: every canary token is looked for.
	Evidence string
	// Shows says what produced Evidence: "echo mcpfz…$((1234+4321))".
	Shows string
	// File is a file in the scratch area an injected command creates.
	File string
	// Hit is the token of the listener URL in Value.
	Hit string
	// Group and Role tie the SQL payloads of one property together: they
	// are judged as a set (see [JudgeSQL]).
	Group string
	Role  string
}

// The roles of the SQL payloads of one property.
const (
	RoleNone         = "none"          // a plain value that matches nothing
	RoleOrTrue       = "or_true"       // … ' OR 'x'='x
	RoleOrFalse      = "or_false"      // … ' OR 'x'='y
	RoleLikeTrue     = "like_true"     // … ' OR 'x' LIKE 'x
	RoleLikeFalse    = "like_false"    // … ' OR 'x' LIKE 'y
	RoleCommentTrue  = "comment_true"  // … ' OR 1=1 --
	RoleCommentFalse = "comment_false" // … ' OR 1=2 --
	RoleQuote        = "quote"         // … '" (a syntax error)
)

// Env is what payloads are built from.
type Env struct {
	Area *Area
	// Base is the scratch area when the server was pointed at it
	// ({scratch}): the directory it must keep to, which relative path
	// payloads climb out of. "" otherwise, and no path payload is sent.
	Base     string
	Listener *Listener
	// Rand chooses tags and numbers; a fixed source makes plans
	// reproducible in tests. nil: a random one.
	Rand *rand.Rand
}

var (
	pathWords = regexp.MustCompile(`(?i)path|file|dir|folder|location`)
	pathDesc  = regexp.MustCompile(`(?i)\b(path|file|files|directory|folder)\b`)
	cmdWords  = regexp.MustCompile(`(?i)cmd|command|exec|shell|script|host|^ip$|address|^addr|domain|target|^args?$|argument|^options?$|^flags?$`)
	cmdDesc   = regexp.MustCompile(`(?i)\b(command|shell|execute|run|ping|host|hostname)\b`)
	codeWords = regexp.MustCompile(`(?i)expr|code|formula|template|tmpl|eval|calc|equation|math|script`)
	codeDesc  = regexp.MustCompile(`(?i)\b(expression|evaluate|calculate|calculation|template|formula|code|math)\b`)
	sqlWords  = regexp.MustCompile(`(?i)sql|query|where|filter|search|name|user|email|^id$|_id$|Id$|^key$|term|keyword|table|column|^order|^sort|lookup|^q$`)
	sqlDesc   = regexp.MustCompile(`(?i)\b(sql|database|query|table|record|records|row|rows|lookup|search)\b`)
	urlWords  = regexp.MustCompile(`(?i)url|uri|link|href|endpoint|webhook|callback|site|host|address|domain|feed`)
	urlDesc   = regexp.MustCompile(`(?i)\b(url|urls|uri|link|web ?page|website|https?)\b`)

	// What a tool's own description says of all its inputs.
	cmdTool  = regexp.MustCompile(`(?i)\b(command|commands|shell|subprocess|execute|executes)\b`)
	codeTool = regexp.MustCompile(`(?i)\b(evaluate|evaluates|expression|template|eval)\b`)
	sqlTool  = regexp.MustCompile(`(?i)\b(sql|database|query|queries)\b`)
)

// families returns the families a property gets, chosen by its name,
// description and format.
func families(p Property) []Family {
	var out []Family
	add := func(f Family, words, desc, tool *regexp.Regexp, formats ...string) {
		for _, fm := range formats {
			if strings.EqualFold(p.Format, fm) {
				out = append(out, f)
				return
			}
		}
		if words.MatchString(p.Name) || desc.MatchString(p.Description) || tool != nil && tool.MatchString(p.Tool) {
			out = append(out, f)
		}
	}
	add(PathTraversal, pathWords, pathDesc, nil)
	add(CommandInjection, cmdWords, cmdDesc, cmdTool)
	add(CodeInjection, codeWords, codeDesc, codeTool)
	add(SQLInjection, sqlWords, sqlDesc, sqlTool)
	add(SSRF, urlWords, urlDesc, nil, "uri", "url", "iri", "uri-reference", "iri-reference")
	return out
}

// Plan returns the probes for a tool's string properties, at most max in
// all (0: no bound), each property's families in order.
func Plan(props []Property, env Env, max int) []Probe {
	r := env.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	var out []Probe
	for _, p := range props {
		fams := families(p)
		if !slices.Contains(fams, CommandInjection) {
			// Any string may end up in a command line (a grep pattern, a
			// commit message): the two substitutions, whose evidence
			// cannot be faked, go to every string the other families
			// leave alone.
			for _, q := range commandProbes(p, env, r) {
				if q.Variant == "subshell" || q.Variant == "backticks" {
					q.Family, q.Name, q.Pointer = CommandInjection, p.Name, p.Pointer
					out = append(out, q)
				}
			}
		}
		for _, f := range fams {
			var ps []Probe
			switch f {
			case PathTraversal:
				ps = pathProbes(p, env)
			case CommandInjection:
				ps = commandProbes(p, env, r)
			case CodeInjection:
				ps = codeProbes(p, r)
			case SQLInjection:
				ps = sqlProbes(p, r)
			case SSRF:
				ps = ssrfProbes(p, env, r)
			}
			for i := range ps {
				ps[i].Family, ps[i].Name, ps[i].Pointer = f, p.Name, p.Pointer
			}
			out = append(out, ps...)
		}
	}
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// climb is how many ".." segments a path payload uses to reach the root
// from any plausible base directory.
const climb = 16

// pathProbes are the path payloads. They are sent only to a server pointed
// at the scratch area ({scratch}): a path traversal is an escape from the
// directory a server was confined to, and only then does mcp-fuzz know
// which one that is (a server confined to the temporary directory may read
// a canary there by right).
func pathProbes(p Property, env Env) []Probe {
	a := env.Area
	if a == nil || env.Base != a.Scratch {
		return nil
	}
	var out []Probe
	add := func(variant, value, desc string) {
		if value != "" {
			out = append(out, Probe{Variant: variant, Value: value, Description: desc})
		}
	}
	parent, _ := a.Canary(CanaryParent)
	fixed, _ := a.Canary(CanaryTemp)
	sibling, _ := a.Canary(CanarySibling)
	rel := relative(env.Base, parent.Path)
	add("dotdot", rel, "a relative path up to the run's parent canary")
	add("dotdot_deep", strings.Repeat("../", climb)+strings.TrimPrefix(fixed.Path, "/"), "a path up to the root and down to a canary")
	add("absolute", fixed.Path, "an absolute path to a canary")
	add("encoded", strings.ReplaceAll(rel, "..", "%2e%2e"), "a relative path with URL-encoded dots")
	add("doubled", strings.ReplaceAll(rel, "../", "....//"), "a relative path whose '../' survives one removal of '../'")
	add("sibling", relative(env.Base, sibling.Path), "a path into a sibling directory whose name begins with the scratch directory's")
	add("symlink", a.Link+"/"+canaryName, "a path through a symlink inside the scratch directory that points out")
	return out
}

// relative is target relative to base with '/' separators, "" when base
// is unknown.
func relative(base, target string) string {
	if base == "" {
		return ""
	}
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// tagSum returns a random tag, and an expression spelling of a sum: the
// evidence is the tag followed by the sum's value, which only evaluating
// the expression makes.
func tagSum(r *rand.Rand) (tag string, a, b int, evidence string) {
	tag = fmt.Sprintf("%s%06x", tokenPrefix, r.Uint32()&0xffffff)
	a, b = 1000+r.IntN(9000), 1000+r.IntN(9000)
	return tag, a, b, tag + strconv.Itoa(a+b)
}

func commandProbes(p Property, env Env, r *rand.Rand) []Probe {
	// Each form puts the command between before and after, after the
	// valid value.
	forms := []struct{ variant, desc, before, after string }{
		{"semicolon", "a command after ';'", ";", ""},
		{"pipe", "a command after '|'", "|", ""},
		{"and", "a command after '&&'", "&&", ""},
		{"subshell", "a command in '$( )'", "$(", ")"},
		{"backticks", "a command in backticks", "`", "`"},
		{"newline", "a command on a new line", "\n", ""},
		{"single_quoted", "a command after closing a single-quoted argument", "';", ";'"},
		{"double_quoted", "a command after closing a double-quoted argument", "\";", ";\""},
	}
	var out []Probe
	for _, f := range forms {
		tag, a, b, ev := tagSum(r)
		expr := fmt.Sprintf("%s$((%d+%d))", tag, a, b)
		cmd := "echo " + expr
		file := ""
		if env.Area != nil && shellSafe(env.Area.Scratch) {
			file = filepath.Join(env.Area.Scratch, ev)
			cmd += fmt.Sprintf(`;touch "%s/%s"`, env.Area.Scratch, expr)
		}
		v := p.Base + f.before + cmd + f.after
		out = append(out, Probe{Variant: f.variant, Value: v, Description: f.desc, Evidence: ev, Shows: "echo " + expr, File: file})
	}
	if env.Area == nil {
		return out
	}
	// Argument injection: a value that a program run without a shell
	// takes for an option, one that writes the file it names (sort, curl,
	// many others: -o FILE). The file is the evidence.
	for _, f := range []struct{ variant, desc, prefix string }{
		{"option_short", "an option instead of an operand: -oFILE", "-o"},
		{"option_long", "an option instead of an operand: --output=FILE", "--output="},
	} {
		tag, _, _, _ := tagSum(r)
		file := filepath.Join(env.Area.Scratch, tag+"-"+f.variant)
		out = append(out, Probe{Variant: f.variant, Value: f.prefix + file, Description: f.desc, File: file})
	}
	return out
}

// shellSafe reports whether a path can stand in double quotes in a shell
// command as it is.
func shellSafe(s string) bool {
	return !strings.ContainsAny(s, "\"$`\\\n")
}

func codeProbes(_ Property, r *rand.Rand) []Probe {
	// Each form makes the tag followed by a sum only by reaching what a
	// sandboxed evaluator withholds (Python's __import__, JavaScript's
	// Function constructor, Jinja's globals, Ruby's Kernel): evaluating
	// arithmetic, the purpose of a calculator or a template tool, proves
	// nothing.
	forms := []struct{ variant, desc, format string }{
		{"python", "Python code that imports a module", `__import__("builtins").str("%s")+__import__("builtins").str(%d+%d)`},
		{"javascript", "JavaScript code built by the Function constructor", `[].constructor.constructor("return '%s'+(%d+%d)")()`},
		{"template_literal", "a JavaScript template literal calling the Function constructor", `%s${[].constructor.constructor("return %d+%d")()}`},
		{"jinja", "a Jinja template reaching Python's builtins", `%s{{ self.__init__.__globals__.__builtins__.str(%d+%d) }}`},
		{"erb", "an ERB template calling Kernel.eval", `%s<%%= Kernel.eval("%d+%d") %%>`},
		{"ruby", "a Ruby interpolation calling Kernel.eval", `%s#{Kernel.eval("%d+%d")}`},
	}
	var out []Probe
	for _, f := range forms {
		tag, a, b, ev := tagSum(r)
		v := fmt.Sprintf(f.format, tag, a, b)
		out = append(out, Probe{Variant: f.variant, Value: v, Description: f.desc, Evidence: ev, Shows: v})
	}
	return out
}

func sqlProbes(p Property, r *rand.Rand) []Probe {
	z := fmt.Sprintf("zq%06x", r.Uint32()&0xffffff)
	group := p.Pointer + "#" + z
	mk := func(role, value, desc string) Probe {
		return Probe{Variant: role, Value: value, Description: desc, Group: group, Role: role}
	}
	return []Probe{
		mk(RoleNone, z, "a plain value that matches nothing, for comparison"),
		mk(RoleOrTrue, z+"' OR 'x'='x", "a quote closed and a condition that is always true"),
		mk(RoleOrFalse, z+"' OR 'x'='y", "a quote closed and a condition that is always false"),
		mk(RoleLikeTrue, z+"' OR 'x' LIKE 'x", "a quote closed and a LIKE that always matches"),
		mk(RoleLikeFalse, z+"' OR 'x' LIKE 'y", "a quote closed and a LIKE that never matches"),
		mk(RoleCommentTrue, z+"' OR 1=1 -- ", "a quote closed, a condition that is always true, the rest a comment"),
		mk(RoleCommentFalse, z+"' OR 1=2 -- ", "a quote closed, a condition that is always false, the rest a comment"),
		mk(RoleQuote, z+`'"`, "an unbalanced quote"),
	}
}

func ssrfProbes(_ Property, env Env, r *rand.Rand) []Probe {
	l := env.Listener
	if l == nil {
		return nil
	}
	hosts := []struct{ variant, host, desc string }{
		{"loopback", "127.0.0.1", "a URL on the loopback address"},
		{"localhost", "localhost", "a URL on localhost"},
		{"ipv6", "[::1]", "a URL on the IPv6 loopback address"},
		{"ipv4_mapped", "[::ffff:127.0.0.1]", "a URL on the loopback address mapped into IPv6"},
		{"decimal", "2130706433", "a URL on the loopback address written as one decimal number"},
		{"hex", "0x7f000001", "a URL on the loopback address written in hexadecimal"},
		{"octal", "0177.0.0.1", "a URL on the loopback address with an octal first part"},
		{"short", "127.1", "a URL on the loopback address in its short form"},
	}
	var out []Probe
	for _, h := range hosts {
		if h.variant == "ipv6" && !l.IPv6() {
			continue
		}
		tok := fmt.Sprintf("%s%016x", tokenPrefix, r.Uint64())
		out = append(out, Probe{Variant: h.variant, Value: l.URL(h.host, tok), Description: h.desc, Hit: tok})
	}
	// A server that builds the URL around a host it is given.
	tok := fmt.Sprintf("%s%016x", tokenPrefix, r.Uint64())
	out = append(out, Probe{Variant: "host_only", Value: strings.TrimPrefix(l.URL("127.0.0.1", tok), "http://") + "#",
		Description: "the loopback address and a path, without a scheme, for a URL built around a host", Hit: tok})
	return out
}
