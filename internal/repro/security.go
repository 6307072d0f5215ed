package repro

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// withScratch wraps the shell reproducer of a security case so that it
// runs as printed after the run's scratch area is gone: it makes the
// scratch directory and the canaries again, with the run's tokens, and
// for a request-forgery case starts a listener on the run's port, whose
// log shows the server's request (docs/BEHAVIOUR.md#security-cases).
func withScratch(s *report.Scratch, caseID, shell string) string {
	if s == nil || shell == "" {
		return shell
	}
	_, variant, _ := strings.Cut(caseID, "#")
	family, form, _ := strings.Cut(variant, ".")
	steps := []string{"mkdir -p " + ShellQuote(s.Dir)}
	if family == report.FlagPathTraversal {
		for _, c := range s.Canaries {
			steps = append(steps,
				"mkdir -p "+ShellQuote(filepath.Dir(c.Path)),
				fmt.Sprintf("printf 'mcp-fuzz canary %%s\\n' %s > %s", ShellQuote(c.Token), ShellQuote(c.Path)))
		}
		if s.Link != "" && s.LinkTarget != "" {
			steps = append(steps, "ln -sfn "+ShellQuote(s.LinkTarget)+" "+ShellQuote(s.Link))
		}
	}
	setup := strings.Join(steps, " && ")
	if family != report.FlagSSRF || s.ListenerPort == "" {
		return setup + " && " + shell
	}
	bind := "127.0.0.1"
	if form == "ipv6" {
		bind = "::1"
	}
	// The listener logs each request on stderr: GET /mcp-fuzz/TOKEN.
	return fmt.Sprintf("%s && { python3 -m http.server %s --bind %s & sleep 3; %s; kill $!; }", setup, s.ListenerPort, bind, shell)
}
