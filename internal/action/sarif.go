package action

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifloc"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// noSARIFLocation is the warning about SARIF results without a location.
const noSARIFLocation = "no file in the repository to locate SARIF results at (no config file, server manifest or checked-out workflow; name one with the sarif-location input): " +
	"the results have no location, and code scanning refuses such an upload"

// sarifLocation finds the file SARIF results point at (package sarifloc),
// relative to the workspace, starting from working-directory; the running
// workflow's file is the last resort. The category, from the config
// file's sarif-category, is kept for [runner.sarifCategory]. A
// sarif-location that is not a file in the workspace is a bad input.
func (r *runner) sarifLocation(s audit.SARIF) (render.SARIFOptions, error) {
	wf, atCommit := sarifloc.Workflow(r.env.Getenv)
	loc, _, err := sarifloc.Find(sarifloc.Input{
		Root: r.s.workspace, Dir: r.s.dir, Named: s.Location, Config: s.Config, Workflow: wf, WorkflowAtCommit: atCommit,
	})
	if errors.Is(err, sarifloc.ErrNamed) {
		return render.SARIFOptions{}, fmt.Errorf("input sarif-location %s: %w", relative(r.s.workspace, s.Location), sarifloc.ErrNamed)
	}
	if err != nil {
		return render.SARIFOptions{}, fmt.Errorf("locating SARIF results: %w", err)
	}
	return render.SARIFOptions{Location: loc, Category: s.Category}, nil
}

// sarifCategory is the code scanning category of the SARIF output, so that
// the uploads of matrix legs and of several steps of one job do not replace
// each other: the config file's sarif-category when set, else the comment
// key (input comment-key, default the job and the target). The default
// names the target by its command or URL as the report records it
// (secrets redacted), not by the server's name and version as the comment
// section does: a category that changed with each release would close
// every alert and open it again.
func (r *runner) sarifCategory(fromConfig string, rep *report.Report) string {
	if fromConfig != "" {
		return fromConfig
	}
	if r.s.commentKey != "" {
		return r.s.commentKey
	}
	target := rep.Target.URL
	if target == "" {
		target = rep.Target.Command
	}
	return strings.TrimSpace(r.env.Getenv("GITHUB_JOB") + " " + target)
}
