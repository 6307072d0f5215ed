package repro

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// withScratch wraps the shell reproducer of a security case so that it
// runs as printed after the run's scratch area is gone
// (docs/BEHAVIOUR.md#security-cases): it makes the run's directory and the
// temp canary's afresh (mkdir fails, and the reproducer stops, if either
// exists: nothing planted there is followed), writes the canaries with the
// run's tokens, for a request-forgery case starts a listener on the run's
// port whose log shows the server's request, and removes all of it at the
// end.
func withScratch(s *report.Scratch, caseID, shell string) string {
	if s == nil || shell == "" {
		return shell
	}
	variant := caseID[strings.LastIndex(caseID, "#")+1:] // family.form
	family, form, _ := strings.Cut(variant, ".")
	run := filepath.Dir(s.Dir)
	dirs := []string{run}
	steps := []string{"mkdir " + ShellQuote(s.Dir)}
	if family == report.FlagPathTraversal {
		for _, c := range s.Canaries {
			dir := filepath.Dir(c.Path)
			switch {
			case dir == run:
			case filepath.Dir(dir) == run:
				steps = append(steps, "mkdir -p "+ShellQuote(dir))
			default:
				// The temp canary's directory, beside the run's.
				steps = append(steps, "mkdir "+ShellQuote(dir))
				dirs = append(dirs, dir)
			}
			steps = append(steps, fmt.Sprintf("printf 'mcp-fuzz canary %%s\\n' %s > %s", ShellQuote(c.Token), ShellQuote(c.Path)))
		}
		if s.Link != "" && s.LinkTarget != "" {
			steps = append(steps, "ln -s "+ShellQuote(s.LinkTarget)+" "+ShellQuote(s.Link))
		}
	}
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = ShellQuote(d)
	}
	setup := strings.Join(steps, " && ")
	body := "{ " + shell + "; }"
	if family == report.FlagCommandInjection {
		// The file an injected command made is the evidence too.
		body = "{ " + shell + "; ls -A " + ShellQuote(s.Dir) + "; }"
	}
	if family == report.FlagSSRF && s.ListenerPort != "" {
		bind := "127.0.0.1"
		if form == "ipv6" {
			bind = "::1"
		}
		// The listener serves an empty directory and logs each request
		// on stderr: GET /mcp-fuzz/TOKEN.
		body = fmt.Sprintf("{ python3 -m http.server %s --bind %s --directory %s & sleep 3; %s; kill $!; }",
			s.ListenerPort, bind, ShellQuote(s.Dir), shell)
	}
	// Only a run directory this command made is used and removed; one
	// that exists already stops it, with mkdir's message.
	return fmt.Sprintf("if mkdir %s; then %s && %s; rm -rf %s; else false; fi", ShellQuote(run), setup, body, strings.Join(quoted, " "))
}
